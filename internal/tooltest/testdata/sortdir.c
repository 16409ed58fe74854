/*
 * sortdir.c: an LD_PRELOAD shim for the comparison tests (internal/tooltest).
 * Debian's and FreeBSD's makefs lay a tree out in readdir(3) order; with this shim
 * loaded, readdir returns the entries of each directory sorted bytewise by
 * name, the order fixturegen uses, so the two images can be compared byte
 * for byte. Built by the tests with: cc -shared -fPIC -o sortdir.so sortdir.c -ldl
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

struct sorted {
	DIR *real;
	struct dirent *ents;
	size_t n, pos;
	struct sorted *next;
};

static struct sorted *open_dirs;

static int cmp(const void *a, const void *b)
{
	return strcmp(((const struct dirent *)a)->d_name,
	    ((const struct dirent *)b)->d_name);
}

static struct sorted *find(DIR *d)
{
	struct sorted *s;
	for (s = open_dirs; s != NULL; s = s->next)
		if (s->real == d)
			return s;
	return NULL;
}

DIR *opendir(const char *name)
{
	static DIR *(*real_opendir)(const char *);
	static struct dirent *(*real_readdir)(DIR *);
	struct sorted *s;
	struct dirent *e;
	size_t cap = 0;
	DIR *d;

	if (real_opendir == NULL) {
		real_opendir = (DIR *(*)(const char *))dlsym(RTLD_NEXT, "opendir");
		real_readdir = (struct dirent *(*)(DIR *))dlsym(RTLD_NEXT, "readdir");
	}
	if ((d = real_opendir(name)) == NULL)
		return NULL;
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return d;
	s->real = d;
	while ((e = real_readdir(d)) != NULL) {
		if (s->n == cap) {
			cap = cap ? 2 * cap : 64;
			s->ents = realloc(s->ents, cap * sizeof(struct dirent));
		}
		memcpy(&s->ents[s->n++], e, sizeof(struct dirent));
	}
	qsort(s->ents, s->n, sizeof(struct dirent), cmp);
	s->next = open_dirs;
	open_dirs = s;
	return d;
}

struct dirent *readdir(DIR *d)
{
	struct sorted *s = find(d);
	if (s == NULL || s->pos >= s->n)
		return NULL;
	return &s->ents[s->pos++];
}

int closedir(DIR *d)
{
	static int (*real_closedir)(DIR *);
	struct sorted **p;

	if (real_closedir == NULL)
		real_closedir = (int (*)(DIR *))dlsym(RTLD_NEXT, "closedir");
	for (p = &open_dirs; *p != NULL; p = &(*p)->next) {
		if ((*p)->real == d) {
			struct sorted *s = *p;
			*p = s->next;
			free(s->ents);
			free(s);
			break;
		}
	}
	return real_closedir(d);
}
