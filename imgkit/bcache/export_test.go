package bcache

// mapWindowForTest is the source-mapping window on systems with mmap (the
// tests use it to size copies that cross windows).
const mapWindowForTest = 16 << 20
