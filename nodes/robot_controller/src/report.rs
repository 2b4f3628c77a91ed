//! The metrics CSV the base station logs (one row per sample). The yield tables and plots
//! of seed sweeps are in the `flotilla_experiments` crate.

use crate::metrics::{RunSummary, Snapshot};

/// Header of the metrics CSV (one row per sample: the snapshot, then the run's totals so far).
pub const METRICS_CSV_HEADER: &str = "time_s,targets,yield,partial,wrong,free,bonds,targets_formed,targets_broken,attachments,wrong_attachments,assembly_rate_per_min,first_target_s";

/// One metrics CSV row (no newline); `first_target_s` is empty while no target formed.
pub fn metrics_csv_row(s: &Snapshot, totals: &RunSummary) -> String {
    format!(
        "{:.3},{},{:.4},{},{},{},{},{},{},{},{},{:.4},{}",
        s.time,
        s.targets,
        s.yield_fraction,
        s.partial,
        s.wrong,
        s.free,
        s.bonds,
        totals.targets_formed,
        totals.targets_broken,
        totals.attachments,
        totals.wrong_attachments,
        totals.assembly_rate,
        totals.first_target_time.map_or_else(String::new, |t| format!("{t:.3}"))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_row_by_hand() {
        let s = Snapshot { time: 60.0, targets: 1, yield_fraction: 1.0 / 3.0, partial: 2, wrong: 0, free: 5, bonds: 6 };
        let totals = RunSummary {
            duration: 60.0,
            final_targets: 1,
            final_yield: 1.0 / 3.0,
            first_target_time: Some(41.25),
            targets_formed: 1,
            targets_broken: 0,
            assembly_rate: 1.0,
            wrong_attachments: 2,
            attachments: 9,
        };
        assert_eq!(metrics_csv_row(&s, &totals), "60.000,1,0.3333,2,0,5,6,1,0,9,2,1.0000,41.250");
        assert_eq!(METRICS_CSV_HEADER.split(',').count(), metrics_csv_row(&s, &totals).split(',').count());
    }
}
