//! The trajectory recorder writes the shared CSV format, flushed frame by frame.

use flotilla_common::catalogue::ModuleKind;
use flotilla_common::trajectory::TrajectoryRecording;
use tank_physics::{TrajectoryRecorder, World, WorldConfig};

#[test]
fn recording_reads_back_and_survives_without_finish() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.csv");
    let mut world = World::new(WorldConfig::default().with_modules(ModuleKind::PingPongBall, 5, "ball"), 3).unwrap();
    let mut recorder = TrajectoryRecorder::create(&path, 2).unwrap();
    let mut last = Vec::new();
    for _ in 0..20 {
        world.step();
        if recorder.record(&world).unwrap() {
            last = world.bodies();
        }
    }
    assert_eq!(recorder.frames(), 10);
    // Read while the recorder is still open (as after a crash): everything is on disk.
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("frame,time,id,x,y,heading,vx,vy\n"), "{text}");
    let rec = TrajectoryRecording::read(&path).unwrap();
    assert_eq!(rec.frame_count(), 10);
    let tracks = rec.tracks();
    assert_eq!(tracks.len(), 5);
    let b = &last[4];
    let s = rec.samples.iter().rev().find(|s| s.id == 4).unwrap();
    assert_eq!((s.frame, s.x, s.y), (20, b.pose.translation.x, b.pose.translation.y));
    assert!((s.time - 0.5).abs() < 1e-12);
    drop(recorder);
}

#[test]
fn going_back_in_time_is_refused() {
    let mut out = Vec::new();
    let mut world = World::new(WorldConfig::default().with_modules(ModuleKind::PingPongBall, 2, "ball"), 3).unwrap();
    let mut recorder = TrajectoryRecorder::new(&mut out, 1).unwrap();
    world.step();
    recorder.record(&world).unwrap();
    world.reset(4).unwrap();
    world.step();
    assert!(recorder.record(&world).is_err());
}
