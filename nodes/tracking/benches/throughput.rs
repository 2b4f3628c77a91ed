//! Throughput of the tracker (detect + track, one thread) and of the renderer.
//!
//! `cargo bench -p tracking --no-default-features --bench throughput`
//!
//! Times are the benchmark thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so they read as
//! "on one core" even when the machine is shared; frames per second = 1 / time.

use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;
use tracking::accuracy::{HarnessConfig, StirringConfig, SyntheticStirring};
use tracking::{ArenaOutline, CameraModel, ImageView, RenderOptions, Renderer, SceneObject, Tracker};

const RATE: f64 = 30.0;

/// CPU time consumed by the calling thread.
struct ThreadCpuTime;

fn thread_cpu_now() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a Linux constant.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

impl Measurement for ThreadCpuTime {
    type Intermediate = Duration;
    type Value = Duration;

    fn start(&self) -> Duration {
        thread_cpu_now()
    }

    fn end(&self, start: Duration) -> Duration {
        thread_cpu_now().saturating_sub(start)
    }

    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }

    fn zero(&self) -> Duration {
        Duration::ZERO
    }

    fn to_f64(&self, value: &Duration) -> f64 {
        value.as_nanos() as f64
    }

    fn formatter(&self) -> &dyn ValueFormatter {
        static WALL: WallTime = WallTime;
        WALL.formatter()
    }
}

/// ArenaOutline, camera and stirred bodies of one benchmark case.
struct Case {
    name: &'static str,
    arena: ArenaOutline,
    camera: CameraModel,
    motion: SyntheticStirring,
}

fn cases() -> Vec<Case> {
    let small = ArenaOutline::lily_tank();
    // 200 balls need a larger tank; 2048 px over 1.26 m keeps ~0.62 mm per pixel.
    let large = ArenaOutline::round(1.2);
    let stirring = |count, radius, seed| {
        SyntheticStirring::new(StirringConfig { count, tank_radius: radius, ..StirringConfig::ping_pong_24(seed) })
            .expect("benchmark bodies fit")
    };
    vec![
        Case { name: "1024px_24markers", arena: small, camera: CameraModel::lily_tank_default(), motion: stirring(24, 0.3, 1) },
        Case {
            name: "2048px_200markers",
            arena: large,
            camera: CameraModel::covering(&large, 2048, 2048, 1.0, 0.03),
            motion: stirring(200, 0.6, 2),
        },
    ]
}

fn truth(case: &Case, frame: usize) -> Vec<SceneObject> {
    case.motion.objects_at(frame as f64 / RATE)
}

fn tracker_for(case: &Case) -> Tracker {
    let detector = tracking::DetectorConfig { region: Some(case.arena), ..HarnessConfig::clean().detector };
    Tracker::new(case.camera.clone(), detector, tracking::TrackerConfig::default()).expect("valid tracker")
}

fn bench_tracker(c: &mut Criterion<ThreadCpuTime>) {
    let mut group = c.benchmark_group("tracker");
    for case in cases() {
        let frames = if case.camera.width > 1024 { 12 } else { 30 };
        let mut renderer = Renderer::new(case.arena, case.camera.clone(), RenderOptions::default()).expect("valid renderer");
        let rgb: Vec<_> = (0..frames).map(|k| renderer.render_rgb(&truth(&case, k), k as u64)).collect();
        let gray: Vec<_> = (0..frames).map(|k| renderer.render_gray(&truth(&case, k), k as u64)).collect();
        group.throughput(Throughput::Elements(1));
        for (encoding, views) in [
            ("rgb8", rgb.iter().map(ImageView::from_rgb).collect::<Vec<_>>()),
            ("mono8", gray.iter().map(ImageView::from_gray).collect::<Vec<_>>()),
        ] {
            let mut tracker = tracker_for(&case);
            let mut frame = 0usize;
            group.bench_function(format!("{}_{}", case.name, encoding), |b| {
                b.iter(|| {
                    // Play the clip forward and back so the motion stays continuous.
                    let k = frame % (2 * frames);
                    let index = if k < frames { k } else { 2 * frames - 1 - k };
                    let stamp = frame as f64 / RATE;
                    frame += 1;
                    black_box(tracker.process(&views[index], stamp).map(|t| t.len()).unwrap_or(0))
                })
            });
        }
    }
    group.finish();
}

fn bench_renderer(c: &mut Criterion<ThreadCpuTime>) {
    let mut group = c.benchmark_group("renderer");
    group.sample_size(20);
    for case in cases() {
        let objects = truth(&case, 0);
        for (setting, options) in [("clean", RenderOptions::default()), ("degraded", HarnessConfig::degraded().render)] {
            let mut renderer = Renderer::new(case.arena, case.camera.clone(), options).expect("valid renderer");
            group.bench_function(format!("{}_{}_rgb8", case.name, setting), |b| b.iter(|| black_box(renderer.render_rgb(&objects, 0))));
            group.bench_function(format!("{}_{}_mono8", case.name, setting), |b| b.iter(|| black_box(renderer.render_gray(&objects, 0))));
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(ThreadCpuTime);
    targets = bench_tracker, bench_renderer
}
criterion_main!(benches);
