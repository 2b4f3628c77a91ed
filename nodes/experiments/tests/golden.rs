//! Golden run: Lily firmware (chain4 ruleset) driving 15 Lilies in the tank, seeded; the
//! poses and latches once per second match `tests/golden/lily_chain4_seed_4.csv`, recorded
//! before the contract/firmware split. Re-record with `FLOTILLA_BLESS=1` only with a reason.

use flotilla_experiments::batch::{Run, TankExperiment};
use robot_controller::Ruleset;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;

#[test]
fn lily_firmware_run_follows_the_golden_file() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let ruleset = Arc::new(Ruleset::from_file(&root.join("config/rulesets/chain4.yaml")).unwrap());
    let mut experiment = TankExperiment::lily_tank(ruleset, 15, 68.6);
    experiment.duration = 60.0;
    let mut run = Run::new(&experiment, 4).unwrap();
    let mut host = run.controller_host().unwrap();
    let mut out = String::from("t,name,x,y,heading,latched\n");
    let mut next_second = 0.0;
    while !run.is_done() {
        if run.time() + 1e-9 >= next_second {
            for b in run.world().bodies() {
                let p = b.pose.translation;
                let latched: String = b.faces.iter().map(|f| f.latched.map_or('-', |l| char::from(b'0' + (l.other_face as u8)))).collect();
                writeln!(out, "{next_second},{},{:?},{:?},{:?},{latched}", b.name, p.x, p.y, b.heading()).unwrap();
            }
            next_second += 1.0;
        }
        run.tick(&mut host).unwrap();
    }
    let path = root.join("tests/golden/lily_chain4_seed_4.csv");
    if std::env::var_os("FLOTILLA_BLESS").is_some() {
        std::fs::write(&path, &out).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap();
    let first_difference = expected.lines().zip(out.lines()).find(|(e, a)| e != a);
    assert!(first_difference.is_none(), "first differing row: {first_difference:?}");
    assert_eq!(expected.lines().count(), out.lines().count());
}
