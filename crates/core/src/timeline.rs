//! The run timeline: the instants of one run and the metrics of DESIGN.md §2.
