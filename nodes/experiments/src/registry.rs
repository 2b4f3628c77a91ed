//! Every experiment of every robot system. A new system adds its module (with an
//! `EXPERIMENTS` list, as [`crate::lily`]) and one line to [`SYSTEMS`].

use crate::experiment::Experiment;

/// The experiments of each system, in the order `flotilla experiment list` shows them.
pub const SYSTEMS: &[&[&dyn Experiment]] = &[
    crate::lily::EXPERIMENTS,
    crate::molemod::EXPERIMENTS,
    crate::mhp::EXPERIMENTS,
    crate::kilobot::EXPERIMENTS,
    crate::blueswarm::EXPERIMENTS,
];

/// Every experiment.
pub fn all() -> impl Iterator<Item = &'static dyn Experiment> {
    SYSTEMS.iter().flat_map(|system| system.iter().copied())
}

/// The experiment `name` of `system`, if there is one.
pub fn find(system: &str, name: &str) -> Option<&'static dyn Experiment> {
    all().find(|e| e.system() == system && e.name() == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::Options;

    #[test]
    fn names_are_unique_and_defaults_are_valid() {
        let mut seen = std::collections::BTreeSet::new();
        for e in all() {
            assert!(seen.insert((e.system(), e.name())), "{} {} registered twice", e.system(), e.name());
            Options::defaults(e.options()).unwrap_or_else(|err| panic!("{} {}: {err}", e.system(), e.name()));
            assert!(e.options().iter().all(|o| o.name != "out" && o.name != "help"), "reserved option names");
        }
        assert!(find("lily", "yield").is_some() && find("lily", "msd").is_some() && find("molemod", "table1").is_some());
        assert!(find("mhp", "trials").is_some() && find("mhp", "sweep").is_some());
        assert!(find("lily", "nothing").is_none());
    }
}
