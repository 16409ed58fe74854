package fstree

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUserDB reads passwd and group files: names to numbers and back,
// the first line for a name or a number winning, a passwd file's primary
// groups, comments and blank lines skipped; ReadUserDB refuses a line it
// cannot read naming the file and line, the host's reading skips it and
// NIS's + and - lines.
func TestUserDB(t *testing.T) {
	t.Parallel()
	const passwd = "# users\n" +
		"root:*:0:0:Charlie &:/root:/bin/sh\n" +
		"\n" +
		"toor:*:0:5:Bourne-again Superuser:/root:\n" +
		"alice:x:1000:100:Alice:/home/alice:/bin/sh\n" +
		"alice:x:1001:101:Alice again:/home/alice:/bin/sh\n" +
		"bob:x:1002:102:FreeBSD master.passwd:0:0:Bob:/home/bob:/bin/sh\n"
	db, err := parseUserDB(strings.NewReader(passwd), "passwd", true)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][2]uint32{"root": {0, 0}, "toor": {0, 5}, "alice": {1000, 100}, "bob": {1002, 102}} {
		if id, ok := db.ID(name); !ok || id != want[0] {
			t.Errorf("ID(%q) = %d, %v; want %d", name, id, ok, want[0])
		}
		if gid, ok := db.PrimaryGroup(name); !ok || gid != want[1] {
			t.Errorf("PrimaryGroup(%q) = %d, %v; want %d", name, gid, ok, want[1])
		}
	}
	for id, want := range map[uint32]string{0: "root", 1000: "alice", 1001: "alice", 1002: "bob"} {
		if name, ok := db.Name(id); !ok || name != want {
			t.Errorf("Name(%d) = %q, %v; want %q", id, name, ok, want)
		}
	}
	if _, ok := db.Name(7); ok {
		t.Error("Name(7) found")
	}
	if _, err := db.Lookup("carol"); err == nil || err.Error() != `"carol" is not in passwd` {
		t.Errorf("Lookup(carol): %v", err)
	}
	group, err := parseUserDB(strings.NewReader("wheel:*:0:root\nstaff:*:20:\n"), "group", true)
	if err != nil {
		t.Fatal(err)
	}
	if id, err := group.Lookup("staff"); err != nil || id != 20 {
		t.Errorf("Lookup(staff) = %d, %v", id, err)
	}
	if _, ok := group.PrimaryGroup("wheel"); ok {
		t.Error("a group file gives primary groups")
	}

	for _, c := range []struct{ text, err string }{
		{"root:*\n", "db:1: want name:password:id and more fields"},
		{"# c\nroot:*:zero:0::/:/bin/sh\n", `db:2: bad id "zero"`},
		{"+::::::\n", "db:1: bad id \"\""},
	} {
		_, err := parseUserDB(strings.NewReader(c.text), "db", true)
		if err == nil || err.Error() != c.err {
			t.Errorf("%q: %v, want %s", c.text, err, c.err)
		}
		lenient, err := parseUserDB(strings.NewReader(c.text+"ok:x:3:3:::\n"), "db", false)
		if err != nil {
			t.Errorf("%q, read as the host's: %v", c.text, err)
		} else if id, ok := lenient.ID("ok"); !ok || id != 3 || len(lenient.ids) != 1 {
			t.Errorf("%q, read as the host's: %v", c.text, lenient.ids)
		}
	}

	dir := t.TempDir()
	p := filepath.Join(dir, "passwd")
	if err := os.WriteFile(p, []byte(passwd), 0o644); err != nil {
		t.Fatal(err)
	}
	if db, err := ReadUserDB(p); err != nil || db.Path() != p || len(db.ids) != 4 {
		t.Errorf("ReadUserDB: %v", err)
	}
	if _, err := ReadUserDB(filepath.Join(dir, "none")); !os.IsNotExist(err) {
		t.Errorf("ReadUserDB of no file: %v", err)
	}
	if db := readHostUserDB(filepath.Join(dir, "none")); len(db.ids) != 0 {
		t.Error("a missing host database has names")
	}
}

// TestHostUserDB checks that the host's databases are /etc/passwd and
// /etc/group: root is 0 in both where they have it.
func TestHostUserDB(t *testing.T) {
	t.Parallel()
	if HostUsers().Path() != "/etc/passwd" || HostGroups().Path() != "/etc/group" {
		t.Fatalf("host databases %s and %s", HostUsers().Path(), HostGroups().Path())
	}
	if _, err := os.Stat("/etc/passwd"); err != nil {
		t.Skip("no /etc/passwd")
	}
	if id, err := LookupHostOwner("root", false); err != nil || id != 0 {
		t.Errorf("root: %d, %v", id, err)
	}
	if name, ok := HostUsers().Name(0); !ok || name != "root" {
		t.Errorf("uid 0: %q, %v", name, ok)
	}
}
