package makefs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUserDB checks -N: the spec's unames and gnames are looked up in the
// directory's master.passwd (or passwd) and group, not the host's, and a
// name not there, a missing database or a bad line is an error naming the
// file.
func TestUserDB(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		files map[string]string
		user  string
		uid   uint32
		err   string
	}{
		{"master.passwd", map[string]string{
			"master.passwd": "# comment\nroot:*:0:0::0:0:Charlie &:/root:/bin/csh\nbuild:*:1001:1002::0:0:b:/:/bin/sh\nbuild:*:7:7::0:0:dup:/:/bin/sh\n",
			"passwd":        "build:*:5:5:ignored:/:/bin/sh\n",
			"group":         "wheel:*:0:root\nbuild:*:1002:\n"}, "build", 1001, ""},
		{"passwd only", map[string]string{
			"passwd": "build:x:2001:2002:b:/:/bin/sh\n", "group": "build:x:1002:\n"}, "build", 2001, ""},
		{"unknown user", map[string]string{
			"passwd": "root:x:0:0::/:/bin/sh\n", "group": "build:x:1002:\n"}, "build", 0, `"build" is not in `},
		{"no group file", map[string]string{"passwd": "build:x:1:1::/:/bin/sh\n"}, "build", 0, "no group"},
		{"bad id", map[string]string{"passwd": "build:x:one:1::/:/bin/sh\n", "group": ""}, "build", 0, `passwd:1: bad id "one"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for name, text := range c.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cmd, err := Parse([]string{"-t", "msdos", "-N", dir, "out.img", "."}, dir, noEnv)
			if err != nil {
				t.Fatal(err)
			}
			opts, err := cmd.TreeOptions()
			if err == nil {
				var uid uint32
				if uid, err = opts.LookupUser(c.user); err == nil && uid != c.uid {
					t.Errorf("uid of %s = %d, want %d", c.user, uid, c.uid)
				}
				if gid, gerr := opts.LookupGroup("build"); err == nil && (gerr != nil || gid != 1002) {
					t.Errorf("gid of build = %d, %v; want 1002", gid, gerr)
				}
			}
			switch {
			case c.err == "" && err != nil:
				t.Errorf("error %v", err)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Errorf("error %v, want one with %q", err, c.err)
			}
		})
	}
}
