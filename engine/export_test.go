package engine

// PruneAlways makes the qpor and optimal modes prune the unfolding after
// every call of Explore (for tests of the pruning).
func PruneAlways(o *Options) { o.Unfolding.PruneAlways = true }

// Anomalies returns how many events that the qpor design rules out
// happened in the exploration that produced r (see Result.anomalies).
func Anomalies(r *Result) int64 { return r.Anomalies }

// FirstAnomaly describes the first anomaly, where it is known.
func FirstAnomaly(r *Result) string { return r.FirstAnomaly }
