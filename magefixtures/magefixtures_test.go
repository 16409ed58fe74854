package magefixtures

import (
	"reflect"
	"testing"
)

// TestSettings checks that $FIXTUREGEN_FLAGS overrides Settings, split
// with shell quoting, and that a bad value is an error naming the
// variable. Not parallel: it sets the environment and Settings.
func TestSettings(t *testing.T) {
	Settings = Config{Dir: "fixtures", Jobs: 2, Names: []string{"a.img"}}
	defer func() { Settings = Config{} }()
	t.Setenv(EnvFlags, "")
	if got, err := settings(); err != nil || !reflect.DeepEqual(got, Settings) {
		t.Errorf("settings() without the variable = %+v, %v", got, err)
	}
	t.Setenv(EnvFlags, `-C 'test data/fixtures' -j 1 -hash -q "b c.img" d\ e.img`)
	want := Config{Dir: "test data/fixtures", Jobs: 1, Hash: true, Quiet: true, Names: []string{"b c.img", "d e.img"}}
	if got, err := settings(); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("settings() = %+v, %v; want %+v", got, err, want)
	}
	for _, bad := range []string{`-C 'open`, `-bogus`, `-j x`} {
		t.Setenv(EnvFlags, bad)
		if _, err := settings(); err == nil {
			t.Errorf("%s=%q: no error", EnvFlags, bad)
		}
	}
}
