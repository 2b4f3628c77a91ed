//! The tracking nodes through ROS: the overhead camera and tracker on the running
//! ping-pong scenario (rate in sim time, accuracy against /tank/state), frames saved from
//! the emulator replayed through image_replay into a second tracker (same tracks), and a
//! tracker fed bad images and CameraInfo by the test (warnings, rate-limited; it keeps
//! tracking).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use flotilla_common::trajectory::TrajectoryRecording;
use flotilla_e2e::{bin, temp_file, Launch, RosProbe};
use futures::StreamExt;
use r2r::builtin_interfaces::msg::Time;
use r2r::flotilla_msgs::msg::{TankState, TrackArray};
use r2r::rcl_interfaces::msg::{Parameter, ParameterValue};
use r2r::rcl_interfaces::srv::SetParameters;
use r2r::sensor_msgs::msg::{CameraInfo, Image};
use r2r::QosProfile;

/// Balls in the pingpong_24 scenario.
const BALLS: usize = 24;

fn secs(t: &Time) -> f64 {
    t.sec as f64 + t.nanosec as f64 * 1e-9
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn camera_and_tracker_follow_the_balls_at_the_camera_rate() {
    let mut probe = RosProbe::new("probe_tracking_live").unwrap();
    let mut states = probe.subscribe::<TankState>("/tank/state").unwrap();
    let mut tracks = probe.subscribe::<TrackArray>("/tracking/tracks").unwrap();
    let mut static_tf = probe.subscribe_latched::<r2r::tf2_msgs::msg::TFMessage>("/tf_static").unwrap();
    probe.spin();
    let launch = Launch::start("launch/pingpong_24.launch.yaml", &["real_time_factor:=1.0"], &probe.domain).unwrap();

    // Ground truth by stamp, and every track message, until 3 s of sim time of tracks.
    let mut truth: HashMap<(i32, u32), TankState> = HashMap::new();
    let mut arrays: Vec<TrackArray> = Vec::new();
    let mut camera_frames = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(25);
    let span = |a: &[TrackArray]| a.last().map_or(0.0, |l| secs(&l.header.stamp) - secs(&a[0].header.stamp));
    while span(&arrays) < 3.0 {
        tokio::select! {
            Some(s) = states.next() => { truth.insert((s.header.stamp.sec, s.header.stamp.nanosec), s); }
            Some(t) = tracks.next() => arrays.push(t),
            Some(tf) = static_tf.next() => camera_frames.extend(tf.transforms),
            _ = tokio::time::sleep_until(deadline) => break,
        }
    }
    let (status, output) = launch.interrupt(Duration::from_secs(10)).unwrap();
    assert!(
        span(&arrays) >= 3.0,
        "tracks spanned {:.2} s of sim time in 25 s ({} messages); output:\n{output}",
        span(&arrays),
        arrays.len()
    );
    assert!(status.success(), "launcher exit {status:?}; output:\n{output}");

    // The camera's optical frame on /tf_static: 1 m above the water of the 0.3 m deep tank,
    // looking down (half a turn about x).
    let [camera] = camera_frames.as_slice() else { panic!("/tf_static: {camera_frames:?}") };
    let water_level = truth.values().next().expect("states").water_level;
    assert_eq!((camera.header.frame_id.as_str(), camera.child_frame_id.as_str()), ("world", "overhead_camera"));
    let (t, q) = (&camera.transform.translation, &camera.transform.rotation);
    assert!(t.x.abs() < 1e-9 && t.y.abs() < 1e-9 && (t.z - (0.3 + water_level + 1.0)).abs() < 1e-9, "{t:?}");
    assert!((q.x.abs() - 1.0).abs() < 1e-9 && q.y.abs() + q.z.abs() + q.w.abs() < 1e-9, "{q:?}");

    // One message per camera frame: 30 Hz of sim time, from the stamps.
    let rate = (arrays.len() - 1) as f64 / span(&arrays);
    assert!((rate - 30.0).abs() <= 3.0, "tracks at {rate:.2} Hz of sim time; output:\n{output}");
    for pair in arrays.windows(2) {
        assert!(secs(&pair[1].header.stamp) > secs(&pair[0].header.stamp), "stamps not increasing");
    }

    // After confirmation, all 24 balls are tracked within a few mm of the physics.
    let mut compared = 0;
    let mut worst: f64 = 0.0;
    for array in arrays.iter().skip(2) {
        let Some(state) = truth.get(&(array.header.stamp.sec, array.header.stamp.nanosec)) else { continue };
        assert_eq!(array.tracks.len(), BALLS, "frame at {:.3} s", secs(&array.header.stamp));
        let mut ids: Vec<u32> = array.tracks.iter().map(|t| t.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), BALLS, "duplicate track ids");
        for m in &state.modules {
            let nearest =
                array.tracks.iter().map(|t| (t.x - m.pose.position.x).hypot(t.y - m.pose.position.y)).fold(f64::INFINITY, f64::min);
            worst = worst.max(nearest);
        }
        compared += 1;
    }
    assert!(compared >= 60, "only {compared} track frames had their /tank/state");
    assert!(worst < 0.003, "worst distance between a ball and its track {:.2} mm", worst * 1e3);
    // Identities persist: the ids of the last frame are those of the third.
    let id_set = |a: &TrackArray| {
        let mut v: Vec<u32> = a.tracks.iter().map(|t| t.id).collect();
        v.sort_unstable();
        v
    };
    assert_eq!(id_set(&arrays[2]), id_set(arrays.last().unwrap()), "identities changed");
}

/// `camera_tracker` (in_process:=true): the same tracks from one process, every rendered
/// frame tracked (none can be lost between camera and tracker), and the summary says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn camera_and_tracker_in_one_process_track_every_frame() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("tracks.csv");
    let mut probe = RosProbe::new("probe_tracking_in_process").unwrap();
    let mut tracks = probe.subscribe::<TrackArray>("/tracking/tracks").unwrap();
    let set =
        probe.with_node(|n| n.create_client::<SetParameters::Service>("/camera_tracker/set_parameters", QosProfile::default())).unwrap();
    probe.spin();
    let world = Launch::start("launch/pingpong_24.launch.yaml", &["camera:=false", "real_time_factor:=1.0"], &probe.domain).unwrap();
    let camera =
        Launch::start("launch/camera_tracker.launch.yaml", &["in_process:=true", &format!("tracks_csv:={}", csv.display())], &probe.domain)
            .unwrap();
    let arrays = flotilla_e2e::collect_until(&mut tracks, Duration::from_secs(25), |a: &[TrackArray]| {
        a.iter().filter(|t| t.tracks.len() == BALLS).count() >= 60
    })
    .await;
    // Its parameters are the camera's and the tracker's, checked by both: a tracker key is
    // taken live, a bad one refused with the reason.
    let integer = |name: &str, value: i64| Parameter {
        name: name.into(),
        value: ParameterValue { type_: 2, integer_value: value, ..Default::default() },
    };
    let set_one = |parameter: Parameter| {
        let request = SetParameters::Request { parameters: vec![parameter] };
        let set = &set;
        async move { flotilla_e2e::call_idempotent(set, &request, Duration::from_secs(10), 6, "set_parameters").await }
    };
    let r = set_one(integer("detector.edge_margin", 0)).await;
    assert!(!r.results[0].successful && r.results[0].reason.contains("edge_margin"), "{:?}", r.results);
    let r = set_one(integer("tracker.object_count", BALLS as i64)).await;
    assert!(r.results[0].successful, "{:?}", r.results);
    // The service answers once the value is accepted; the node applies it on its own loop.
    let applied = Instant::now() + Duration::from_secs(10);
    while !camera.output().contains("tracker parameters updated") && Instant::now() < applied {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (status, output) = camera.interrupt(Duration::from_secs(15)).unwrap();
    assert!(status.success(), "camera_tracker exit {status:?}:\n{output}");
    assert!(output.contains("tracker parameters updated"), "{output}");
    let (status, world_output) = world.interrupt(Duration::from_secs(10)).unwrap();
    assert!(status.success(), "physics exit {status:?}:\n{world_output}");
    assert!(!output.contains("exec: overhead_camera") && output.contains("camera_tracker"), "{output}");
    let full: Vec<&TrackArray> = arrays.iter().filter(|t| t.tracks.len() == BALLS).collect();
    assert!(full.len() >= 60, "{} messages with every ball:\n{output}", full.len());
    let mut ids: Vec<u32> = full.last().unwrap().tracks.iter().map(|t| t.id).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), BALLS, "duplicate track ids");
    // "summary: N frames rendered, ...; tracker summary: N frames tracked, 0 skipped, 0 lost".
    let number_before = |text: &str, what: &str| -> u64 {
        let at = text.find(what).unwrap_or_else(|| panic!("no `{what}` in:\n{output}"));
        text[..at].split_whitespace().last().and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("no count before `{what}`:\n{output}"))
    };
    let rendered = number_before(&output, " frames rendered");
    let tracked = number_before(&output, " frames tracked");
    assert!(rendered >= 60 && tracked == rendered, "{rendered} rendered, {tracked} tracked:\n{output}");
    assert!(output.contains("0 skipped, 0 lost before arrival"), "{output}");
    // Every tracked frame with confirmed tracks is in the CSV (the first has none yet).
    let recorded = by_stamp(&csv).len() as u64;
    assert!(recorded + 2 >= tracked && recorded <= tracked, "{recorded} frames recorded of {tracked} tracked");
}

/// Detected positions by frame stamp: (time bits) -> id -> (x, y).
fn by_stamp(path: &Path) -> BTreeMap<u64, BTreeMap<u32, (f64, f64)>> {
    let recording = TrajectoryRecording::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut frames: BTreeMap<u64, BTreeMap<u32, (f64, f64)>> = BTreeMap::new();
    for s in recording.samples {
        frames.entry(s.time.to_bits()).or_default().insert(s.id, (s.x, s.y));
    }
    frames
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn frames_saved_from_the_emulator_replay_to_the_same_tracks() {
    let dir = tempfile::tempdir().unwrap();
    let (frames, live_csv, replay_csv) = (dir.path().join("frames"), dir.path().join("live.csv"), dir.path().join("replay.csv"));
    let mut probe = RosProbe::new("probe_tracking_replay").unwrap();
    let mut tracks = probe.subscribe::<TrackArray>("/tracking/tracks").unwrap();
    probe.spin();
    let world = Launch::start("launch/pingpong_24.launch.yaml", &["camera:=false", "real_time_factor:=1.0"], &probe.domain).unwrap();
    // The degraded camera (noise, blur, gradient, lens distortion) at 512 x 512: cheap
    // to save as PNG while other tests run, and the tracker must undistort.
    let degraded = std::fs::read_to_string(flotilla_e2e::repo_root().join("config/overhead_camera_degraded.yaml")).unwrap();
    let small = degraded.replace("width: 1024", "width: 512").replace("height: 1024", "height: 512");
    assert_ne!(small, degraded, "config/overhead_camera_degraded.yaml no longer sets width/height 1024");
    let (_config_dir, camera_config) = temp_file("camera.yaml", &small).unwrap();
    let camera = Launch::start(
        "launch/camera_tracker.launch.yaml",
        &[
            &format!("camera_config:={}", camera_config.display()),
            &format!("save_frames_dir:={}", frames.display()),
            &format!("tracks_csv:={}", live_csv.display()),
        ],
        &probe.domain,
    )
    .unwrap();
    let full = flotilla_e2e::collect_until(&mut tracks, Duration::from_secs(25), |a: &[TrackArray]| {
        a.iter().filter(|t| t.tracks.len() == BALLS).count() >= 45
    })
    .await;
    let (status, camera_output) = camera.interrupt(Duration::from_secs(15)).unwrap();
    assert!(status.success(), "camera + tracker exit {status:?}:\n{camera_output}");
    let (status, output) = world.interrupt(Duration::from_secs(10)).unwrap();
    assert!(status.success(), "physics exit {status:?}:\n{output}");
    assert!(full.len() >= 45, "only {} track messages:\n{camera_output}", full.len());
    let saved = std::fs::read_dir(&frames).unwrap().filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "png")).count();
    assert!(camera_output.contains(&format!("{saved} saved")), "saved {saved} frames, summary says otherwise:\n{camera_output}");

    let replay = Launch::start(
        "launch/replay_tracker.launch.yaml",
        &[&format!("replay_dir:={}", frames.display()), &format!("tracks_csv:={}", replay_csv.display()), "speed:=1.0"],
        &probe.domain,
    )
    .unwrap();
    let (status, replay_output) = replay.wait(Duration::from_secs(28)).unwrap();
    assert!(status.success(), "replay exit {status:?}:\n{replay_output}");
    assert!(replay_output.contains(&format!("summary: {saved} frames published")), "{replay_output}");
    // In lock step, as fast as the tracker goes, every frame is tracked and none lost.
    let lockstep = Launch::start(
        "launch/replay_tracker.launch.yaml",
        &[&format!("replay_dir:={}", frames.display()), "speed:=0", "lockstep:=true"],
        &probe.domain,
    )
    .unwrap();
    let (status, lockstep_output) = lockstep.wait(Duration::from_secs(40)).unwrap();
    assert!(status.success(), "lock-step replay exit {status:?}:\n{lockstep_output}");
    assert!(
        lockstep_output.contains(&format!("summary: {saved} frames tracked, 0 skipped, 0 lost before arrival"))
            && !lockstep_output.contains("lock step: frame not seen tracked"),
        "{lockstep_output}"
    );

    // The frames of the live run are in the replay, at the same stamps, with the same
    // positions under one fixed pairing of ids. Fast DDS may lose the odd image in either
    // run (a lost fragment is only re-requested at the next heartbeat), and the live
    // tracker may subscribe after the first frames, so a few frames may be missing from
    // one side. The two runs then start from different histories: the tracks (one coasts
    // where the other is hit) until both have seen the SETTLE frames before a frame, and
    // the detector's running illumination and edge-width estimates (refreshed a quarter
    // of the tiles per frame) for good, which moves a centroid by a fraction of a pixel
    // (up to 0.52 mm measured); positions agree within TOLERANCE, about one pixel.
    const TOLERANCE: f64 = 0.0015;
    const SETTLE: usize = 5;
    let (live, replayed) = (by_stamp(&live_csv), by_stamp(&replay_csv));
    assert!(live.len() >= 40, "live run recorded {} frames", live.len());
    assert!(
        replayed.len() as f64 >= 0.9 * saved as f64,
        "replay tracked {} of {saved} frames:\n{replay_output}\nlive:\n{camera_output}",
        replayed.len()
    );
    let frame_paths = tracking::replay::list_frames(&frames).unwrap();
    let saved_stamps = tracking::replay::read_stamps(&frames, &frame_paths).unwrap().expect("stamps.csv lists every saved frame");
    let seen_by = |run: &BTreeMap<u64, BTreeMap<u32, (f64, f64)>>| -> Vec<bool> {
        saved_stamps.iter().map(|s| run.keys().any(|k| (f64::from_bits(*k) - s).abs() < 1e-6)).collect()
    };
    let (live_seen, replay_seen) = (seen_by(&live), seen_by(&replayed));
    let unseen = |seen: &[bool]| -> Vec<usize> { (0..seen.len()).filter(|&i| !seen[i]).collect() };
    let holes = format!("saved frames without tracks: live {:?}, replay {:?}", unseen(&live_seen), unseen(&replay_seen));
    let settled = |i: usize| i >= SETTLE && (i - SETTLE..=i).all(|j| live_seen[j] && replay_seen[j]);
    let mut pairing: HashMap<u32, u32> = HashMap::new();
    let (mut compared, mut missing) = (0, 0);
    for (stamp, live_frame) in &live {
        let Some(replay_frame) = replayed.get(stamp) else {
            missing += 1;
            continue;
        };
        let time = f64::from_bits(*stamp);
        let index = saved_stamps.iter().position(|s| (s - time).abs() < 1e-6);
        let index = index.unwrap_or_else(|| panic!("live frame at {time} s is not among the saved frames"));
        if !settled(index) {
            continue;
        }
        for (id, position) in live_frame {
            let (replay_id, _) = replay_frame
                .iter()
                .find(|(_, p)| (p.0 - position.0).hypot(p.1 - position.1) < TOLERANCE)
                .unwrap_or_else(|| panic!("live track {id} at {position:?} ({time} s, frame {index}) not in the replay; {holes}"));
            assert_eq!(*pairing.entry(*id).or_insert(*replay_id), *replay_id, "track {id} changed partner; {holes}");
        }
        compared += 1;
    }
    assert!(missing * 10 <= live.len(), "{missing} of {} live frames missing from the replay", live.len());
    let mut partners: Vec<u32> = pairing.values().copied().collect();
    partners.sort_unstable();
    partners.dedup();
    assert_eq!(partners.len(), pairing.len(), "two live tracks share a replay track: {pairing:?}");
    assert!(compared >= 30 && pairing.len() >= BALLS, "compared {compared} frames, {} ids; {holes}", pairing.len());
}

fn image(width: u32, height: u32, step: u32, encoding: &str, data: Vec<u8>, stamp: f64) -> Image {
    Image { header: flotilla_common::ros::header(stamp, "cam"), height, width, encoding: encoding.into(), is_bigendian: 0, step, data }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tracker_warns_about_bad_images_and_keeps_tracking() {
    use tracking::{ArenaOutline, CameraModel, MarkerKind, RenderOptions, Renderer, SceneObject};
    let camera = CameraModel::covering(&ArenaOutline::lily_tank(), 512, 512, 1.0, 0.03);
    let mut renderer = Renderer::new(ArenaOutline::lily_tank(), camera.clone(), RenderOptions::default()).unwrap();
    let balls: Vec<SceneObject> = (0..3).map(|k| SceneObject::new(k, MarkerKind::Ball, -0.1 + 0.1 * k as f64, 0.05)).collect();
    let good = renderer.render_rgb(&balls, 0).into_raw();
    let fields = camera.camera_info();
    let info = |width: u32, model: &str| CameraInfo {
        width,
        height: 512,
        distortion_model: model.into(),
        d: fields.d.clone(),
        k: fields.k.to_vec(),
        r: fields.r.to_vec(),
        p: fields.p.to_vec(),
        ..Default::default()
    };

    let (_dir, params) = temp_file(
        "tracker.yaml",
        "tracker:\n  ros__parameters:\n    image_topic: /probe/image\n    camera_info_topic: /probe/camera_info\n    warn_interval: 60.0\n",
    )
    .unwrap();
    let mut probe = RosProbe::new("probe_tracking_bad").unwrap();
    let images = probe.with_node(|n| n.create_publisher::<Image>("/probe/image", QosProfile::default())).unwrap();
    let infos = probe.with_node(|n| n.create_publisher::<CameraInfo>("/probe/camera_info", QosProfile::default())).unwrap();
    let mut tracks = probe.subscribe::<TrackArray>("/tracking/tracks").unwrap();
    probe.spin();
    let mut cmd = Command::new(bin("tracker"));
    cmd.args(["--ros-args", "--params-file"]).arg(&params);
    let tracker = Launch::spawn(cmd, &probe.domain).unwrap();
    let t0 = Instant::now();
    while (images.get_inter_process_subscription_count().unwrap() == 0 || infos.get_inter_process_subscription_count().unwrap() == 0)
        && t0.elapsed() < Duration::from_secs(15)
    {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let pace = || tokio::time::sleep(Duration::from_millis(30));
    let mut stamp = 1.0;
    let mut send = |msg: Image| {
        stamp += 0.1;
        images.publish(&Image { header: flotilla_common::ros::header(stamp, "cam"), ..msg }).unwrap();
        stamp
    };
    // Waits (sending `resend` meanwhile, if any) until the tracker's log holds `text`
    // `count` times.
    async fn logged(tracker: &Launch, text: &str, count: usize, mut resend: impl FnMut()) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while tracker.output().matches(text).count() < count {
            assert!(Instant::now() < deadline, "tracker never logged `{text}` x{count}:\n{}", tracker.output());
            resend();
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    const MODEL: &str = "camera model from CameraInfo";

    // Before any CameraInfo: sent until the tracker says so (its subscription is live then).
    logged(&tracker, "no valid CameraInfo received yet", 1, || {
        send(image(512, 512, 1536, "rgb8", good.clone(), 0.0));
    })
    .await;
    infos.publish(&info(512, "plumb_bob")).unwrap();
    logged(&tracker, MODEL, 1, || ()).await;
    // Five of each bad kind: one warning per kind within warn_interval.
    for _ in 0..5 {
        send(image(512, 512, 1536, "32FC1", good.clone(), 0.0));
        pace().await;
        send(image(512, 512, 1536, "rgb8", good[..good.len() / 2].to_vec(), 0.0));
        pace().await;
        send(image(512, 512, 1000, "rgb8", good.clone(), 0.0));
        pace().await;
    }
    send(image(0, 0, 0, "rgb8", Vec::new(), 0.0));
    logged(&tracker, "image size 0x0 is empty", 1, || ()).await;
    // A CameraInfo of another size (accepted, frames then refused), and an invalid one
    // (refused, previous kept).
    infos.publish(&info(640, "plumb_bob")).unwrap();
    logged(&tracker, MODEL, 2, || ()).await;
    send(image(512, 512, 1536, "rgb8", good.clone(), 0.0));
    logged(&tracker, "image is 512x512 but the camera model is 640x512", 1, || ()).await;
    infos.publish(&info(512, "equidistant")).unwrap();
    logged(&tracker, "is not supported", 1, || ()).await;
    send(image(512, 512, 1536, "rgb8", good.clone(), 0.0));
    pace().await;
    // A consistent CameraInfo again: good frames are tracked.
    infos.publish(&info(512, "plumb_bob")).unwrap();
    logged(&tracker, MODEL, 3, || ()).await;
    for _ in 0..5 {
        send(image(512, 512, 1536, "rgb8", good.clone(), 0.0));
        pace().await;
    }
    let got =
        flotilla_e2e::collect_until(&mut tracks, Duration::from_secs(5), |a: &[TrackArray]| a.iter().any(|t| t.tracks.len() == 3)).await;
    // The same scene as another renderer publishes it (bgra8): converted and tracked.
    let bgra: Vec<u8> = good.chunks_exact(3).flat_map(|p| [p[2], p[1], p[0], 255]).collect();
    let mut first_bgra = f64::INFINITY;
    for _ in 0..5 {
        first_bgra = first_bgra.min(send(image(512, 512, 2048, "bgra8", bgra.clone(), 0.0)));
        pace().await;
    }
    let seconds = |t: &TrackArray| f64::from(t.header.stamp.sec) + 1e-9 * f64::from(t.header.stamp.nanosec);
    let from_bgra = |t: &TrackArray| t.tracks.len() == 3 && seconds(t) > first_bgra - 0.01;
    let got_bgra = flotilla_e2e::collect_until(&mut tracks, Duration::from_secs(5), |a: &[TrackArray]| a.iter().any(from_bgra)).await;
    let (status, output) = tracker.interrupt(Duration::from_secs(10)).unwrap();
    assert!(status.success(), "tracker exit {status:?}:\n{output}");
    assert!(got.iter().any(|t| t.tracks.len() == 3), "no tracks after the bad input:\n{output}");
    assert!(got_bgra.iter().any(from_bgra), "bgra8 frames not tracked:\n{output}");
    let once = |text: &str| {
        let n = output.matches(text).count();
        assert_eq!(n, 1, "`{text}` logged {n} times:\n{output}");
    };
    once("no valid CameraInfo received yet");
    once("unsupported image encoding `32FC1`");
    once("image data truncated");
    once("image step 1000 B is shorter than a row of 512 px x 3 B");
    once("image size 0x0 is empty");
    once("image is 512x512 but the camera model is 640x512");
    once("CameraInfo distortion model `equidistant` is not supported");
    assert!(output.contains("frames tracked") && output.contains("skipped"), "{output}");
}

#[test]
fn tracking_nodes_refuse_bad_parameters_naming_the_key() {
    let domain = flotilla_e2e::Domain::reserve().unwrap();
    let cases = [
        ("overhead_camera", "overhead_camera:\n  ros__parameters:\n    encoding: yuv422\n", "encoding"),
        ("overhead_camera", "overhead_camera:\n  ros__parameters:\n    render: {blur_sigma: -1.0}\n", "render.blur_sigma"),
        ("tracker", "tracker:\n  ros__parameters:\n    detector: {edge_margin: 0}\n", "detector.edge_margin"),
        ("tracker", "tracker:\n  ros__parameters:\n    tracker: {confirm_hit: 2}\n", "confirm_hit"),
        ("image_replay", "image_replay:\n  ros__parameters:\n    speed: 1.0\n", "directory"),
        // camera_tracker reads both nodes' sections (and its own); the key is named as there.
        ("camera_tracker", "tracker:\n  ros__parameters:\n    detector: {edge_margin: 0}\n", "detector.edge_margin"),
        ("camera_tracker", "overhead_camera:\n  ros__parameters:\n    encoding: yuv422\n", "encoding"),
        ("camera_tracker", "camera_tracker:\n  ros__parameters:\n    tracks_topic: 'a b'\n", "tracks_topic"),
        ("camera_tracker", "trackr:\n  ros__parameters:\n    plane_z: 0.0\n", "no section applies"),
    ];
    flotilla_e2e::assert_bad_parameters_refused(&domain, &cases);
}

/// A replayed folder whose every image file is unreadable (a zero-byte file, a text named
/// .png) ended "successfully" having published nothing, and with `loop` warned about the
/// same files for ever: now it exits 1 naming the folder, the empty file said as such.
#[test]
fn replay_of_a_folder_without_one_readable_frame_fails_naming_it() {
    let domain = flotilla_e2e::Domain::reserve().unwrap();
    let dir = tempfile::tempdir().unwrap();
    tracking::replay::write_camera(dir.path(), &tracking::CameraModel::lily_tank_default()).unwrap();
    std::fs::write(dir.path().join("frame_000000.png"), b"").unwrap();
    std::fs::write(dir.path().join("frame_000001.png"), b"not an image\n").unwrap();
    for looping in ["false", "true"] {
        let mut cmd = Command::new(bin("image_replay"));
        cmd.args(["--ros-args", "-p", &format!("directory:={}", dir.path().display()), "-p", "speed:=0.0", "-p", "linger:=0.0"]);
        cmd.args(["-p", &format!("loop:={looping}")]);
        let (status, output) = Launch::spawn(cmd, &domain).unwrap().wait(Duration::from_secs(20)).unwrap();
        assert_eq!(status.code(), Some(1), "loop {looping}: {output}");
        assert!(output.contains("none of the 2 image files") && output.contains(&dir.path().display().to_string()), "{output}");
        assert!(output.contains("frame_000000.png: the file is empty (0 bytes)"), "{output}");
        assert!(output.matches("frame skipped").count() <= 2, "loop {looping}: {output}");
    }
}

/// In lock step the replay waited a whole `done_timeout` for every frame whose size
/// contradicts camera.yaml, which the tracker skips and so never confirms: a folder of
/// such frames took hours. Now only frames a tracker can track are waited for.
#[test]
fn lockstep_replay_does_not_wait_for_frames_of_the_wrong_size() {
    let domain = flotilla_e2e::Domain::reserve().unwrap();
    let dir = tempfile::tempdir().unwrap();
    tracking::replay::write_camera(dir.path(), &tracking::CameraModel::lily_tank_default()).unwrap();
    tracking::replay::save_gray_frame(dir.path(), 0, &image::GrayImage::new(1024, 1024)).unwrap();
    for k in 1..4 {
        tracking::replay::save_gray_frame(dir.path(), k, &image::GrayImage::new(64, 48)).unwrap();
    }
    let mut tracker = Command::new(bin("tracker"));
    tracker.args(["--ros-args", "--params-file", &flotilla_e2e::repo_root().join("config/tracker.yaml").display().to_string()]);
    let tracker = Launch::spawn(tracker, &domain).unwrap();
    let mut replay = Command::new(bin("image_replay"));
    replay.args(["--ros-args", "-p", &format!("directory:={}", dir.path().display())]);
    for p in ["speed:=0.0", "wait_for_subscribers:=1", "done_topic:=/tracking/tracks", "lockstep:=true", "done_timeout:=5.0", "linger:=0.0"]
    {
        replay.args(["-p", p]);
    }
    let started = Instant::now();
    let (status, output) = Launch::spawn(replay, &domain).unwrap().wait(Duration::from_secs(60)).unwrap();
    let elapsed = started.elapsed();
    let (_, tracker_output) = tracker.interrupt(Duration::from_secs(10)).unwrap();
    assert!(status.success(), "{output}");
    assert!(output.contains("4 frames published"), "{output}");
    assert!(!output.contains("not seen tracked"), "{output}");
    // Three waits of 5 s before; now the replay only waits for the tracker to start.
    assert!(elapsed < Duration::from_secs(12), "{elapsed:?}\n{output}\n{tracker_output}");
    assert!(tracker_output.contains("1 frames tracked, 3 skipped"), "{tracker_output}");
}
