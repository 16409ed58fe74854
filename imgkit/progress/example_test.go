package progress_test

import (
	"fmt"

	"github.com/fixturegen/fixturegen/imgkit/progress"
)

// A piece of work names its steps and counts them; a status line loads
// the figures.
func ExampleMeter() {
	var m progress.Meter
	m.Step("copying part.img", 3<<20)
	m.Add(1 << 20) // one chunk of the copy
	name, done, total := m.Load()
	fmt.Printf("%s %d / %d (%d%%)\n", name, done, total, done*100/total)
	// Output: copying part.img 1048576 / 3145728 (33%)
}
