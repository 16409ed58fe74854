package mkimg

// typeIn returns a scheme's hasType for the aliases types maps to the
// scheme's own type values.
func typeIn[V any](types map[string]V) func(alias string) bool {
	return func(alias string) bool { _, ok := types[alias]; return ok }
}

// aliasOf returns the alias types maps to v, the least in byte order when
// several do (so that a value reads back as the same alias every time),
// or raw when none does.
func aliasOf[V comparable](types map[string]V, v V, raw string) string {
	best, found := "", false
	for alias, t := range types {
		if t == v && (!found || alias < best) {
			best, found = alias, true
		}
	}
	if !found {
		return raw
	}
	return best
}
