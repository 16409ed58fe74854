package ext

// CompareWithSleuthkit is compareWithSleuthkit, for the tests of package
// ext_test (which import imgkit/inspect, which imports this package).
var CompareWithSleuthkit = compareWithSleuthkit
