package hugemem

func hugePageOf() uintptr { return hugePage }
