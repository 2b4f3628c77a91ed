//! A camera stream replayed from saved PNG frames gives the same tracks as the live
//! emulated camera, and broken files are skipped with an error naming them.

use tracking::accuracy::{HarnessConfig, StirringConfig, SyntheticStirring};
use tracking::replay::{self, FrameFolder};
use tracking::{ImageView, Renderer, Track, Tracker};

const RATE: f64 = 30.0;

#[test]
fn replayed_frames_track_exactly_like_live_frames() {
    let config = HarnessConfig::degraded();
    let motion = SyntheticStirring::new(StirringConfig::ping_pong_24(21)).unwrap();
    let mut renderer = Renderer::new(config.arena, config.camera.clone(), config.render.clone()).unwrap();
    let new_tracker = |camera| Tracker::new(camera, config.detector.clone(), config.tracker.clone()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    replay::write_camera(dir.path(), &config.camera).unwrap();

    let mut live = new_tracker(config.camera.clone());
    let mut live_tracks: Vec<Vec<Track>> = Vec::new();
    for k in 0..8u64 {
        let stamp = k as f64 / RATE;
        let frame = renderer.render_gray(&motion.objects_at(stamp), k);
        live_tracks.push(live.process(&ImageView::from_gray(&frame), stamp).unwrap().to_vec());
        replay::save_gray_frame(dir.path(), k, &frame).unwrap();
    }
    // A corrupt file in the middle is reported and skipped.
    std::fs::write(dir.path().join("frame_000005x.png"), b"\x89PNG broken").unwrap();

    let camera = replay::read_camera(dir.path()).unwrap().expect("camera.yaml saved");
    let mut replayed = new_tracker(camera);
    let mut replay_tracks = Vec::new();
    let mut errors = Vec::new();
    let mut k = 0u64;
    for (path, frame) in FrameFolder::open(dir.path()).unwrap() {
        match frame {
            Ok(frame) => {
                let stamp = k as f64 / RATE;
                replay_tracks.push(replayed.process(&frame.view().unwrap(), stamp).unwrap().to_vec());
                k += 1;
            }
            Err(e) => errors.push((path, e.to_string())),
        }
    }
    assert_eq!(errors.len(), 1);
    assert!(errors[0].1.contains("frame_000005x.png"), "{errors:?}");
    assert_eq!(replay_tracks, live_tracks);
    assert_eq!(live_tracks.last().unwrap().len(), 24);
}
