//! Swarm metrics of the paper (SPEC 3): convex-hull volume and density, mean
//! nearest-neighbour distance, neighbours seen, circle radius, and [`SwarmMetrics`], which
//! follows a running swarm from what an observer of the tank sees (poses, LEDs, readings)
//! and gives every behaviour's figures at once: dispersion (hull, density, NND), milling
//! (circle radius and its spread), synchrony (flash-onset spread per round) and search
//! (robots searching / gathering / alerting and the times of the three phases).

use flotilla_contract::bluebot::{BluebotCommand, BluebotSensors};
use nalgebra::{Vector2, Vector3};
use std::collections::HashSet;

/// Volume of the convex hull of `points`, m^3 (0 for fewer than 4 or coplanar points).
/// Every plane through three points with all points on one side is a hull face; the
/// points on it are outlined by their 2-D hull, and the faces' pyramids from the centroid
/// sum to the volume. O(n^4): meant for swarms of tens.
pub fn hull_volume(points: &[Vector3<f64>]) -> f64 {
    let n = points.len();
    if n < 4 {
        return 0.0;
    }
    let centroid = points.iter().sum::<Vector3<f64>>() / n as f64;
    let scale = points.iter().map(|p| (p - centroid).norm()).fold(0.0, f64::max).max(1e-9);
    let eps = 1e-9 * scale;
    let mut faces: HashSet<Vec<usize>> = HashSet::new();
    let mut volume = 0.0;
    for i in 0..n {
        for j in i + 1..n {
            for k in j + 1..n {
                let normal = (points[j] - points[i]).cross(&(points[k] - points[i]));
                if normal.norm() < eps * scale {
                    continue;
                }
                let normal = normal.normalize();
                let side: Vec<f64> = points.iter().map(|p| normal.dot(&(p - points[i]))).collect();
                let (above, below) = (side.iter().any(|&s| s > eps), side.iter().any(|&s| s < -eps));
                if above && below {
                    continue;
                }
                if !above && !below {
                    return 0.0; // every point on one plane
                }
                let on: Vec<usize> = (0..n).filter(|&m| side[m].abs() <= eps).collect();
                if !faces.insert(on.clone()) {
                    continue;
                }
                let u = (points[j] - points[i]).normalize();
                let v = normal.cross(&u);
                let flat: Vec<Vector2<f64>> = on.iter().map(|&m| Vector2::new(u.dot(&points[m]), v.dot(&points[m]))).collect();
                let height = normal.dot(&(points[i] - centroid)).abs();
                volume += polygon_hull_area(flat) * height / 3.0;
            }
        }
    }
    volume
}

/// Area of the 2-D convex hull of `points` (monotone chain), m^2.
fn polygon_hull_area(mut points: Vec<Vector2<f64>>) -> f64 {
    points.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    let cross = |o: &Vector2<f64>, a: &Vector2<f64>, b: &Vector2<f64>| (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
    let mut hull: Vec<Vector2<f64>> = Vec::new();
    for pass in 0..2 {
        let start = hull.len();
        let iter: Box<dyn Iterator<Item = &Vector2<f64>>> = if pass == 0 { Box::new(points.iter()) } else { Box::new(points.iter().rev()) };
        for p in iter {
            while hull.len() >= start + 2 && cross(&hull[hull.len() - 2], &hull[hull.len() - 1], p) <= 0.0 {
                hull.pop();
            }
            hull.push(*p);
        }
        hull.pop();
    }
    let m = hull.len();
    0.5 * (0..m).map(|i| hull[i].x * hull[(i + 1) % m].y - hull[(i + 1) % m].x * hull[i].y).sum::<f64>().abs()
}

/// Mean over the points of the distance to the nearest other point, m.
pub fn mean_nnd(points: &[Vector3<f64>]) -> f64 {
    if points.len() < 2 {
        return f64::NAN;
    }
    let nearest =
        |i: usize| points.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, q)| (q - points[i]).norm()).fold(f64::INFINITY, f64::min);
    (0..points.len()).map(nearest).sum::<f64>() / points.len() as f64
}

/// Mean horizontal distance of the points from their centroid, m, and its coefficient of
/// variation.
pub fn circle(points: &[Vector3<f64>]) -> (f64, f64) {
    if points.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let c = points.iter().sum::<Vector3<f64>>() / points.len() as f64;
    let r: Vec<f64> = points.iter().map(|p| (p.x - c.x).hypot(p.y - c.y)).collect();
    let mean = r.iter().sum::<f64>() / r.len() as f64;
    let var = r.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / r.len() as f64;
    (mean, var.sqrt() / mean.max(1e-12))
}

/// What a robot's LEDs say about its search state (the search firmware lights its LEDs
/// while searching, flashes them while alerting and turns them off while gathering).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// LEDs on, steady.
    Steady,
    /// LEDs blinking at 15 Hz.
    Flashing,
    /// LEDs off.
    Dark,
}

impl Signal {
    /// The signal of a command.
    pub fn of(command: &BluebotCommand) -> Self {
        match (command.flashing, command.leds) {
            (true, _) => Signal::Flashing,
            (false, true) => Signal::Steady,
            (false, false) => Signal::Dark,
        }
    }
}

/// One sample of the swarm's metrics (NaN where a figure is undefined, e.g. a hull of
/// fewer than four robots or a round nobody finished).
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Sim time, s.
    pub time: f64,
    /// Robots in the tank.
    pub robots: usize,
    /// Volume of the convex hull of the robots' positions, m^3 (NaN above
    /// [`MAX_HULL_ROBOTS`] robots: the hull is O(n^4)).
    pub hull_volume: f64,
    /// Robots per hull volume, 1/m^3.
    pub density: f64,
    /// Mean nearest-neighbour distance, m.
    pub mean_nnd: f64,
    /// Mean number of neighbours in the last readings, robots.
    pub neighbours_seen: f64,
    /// Mean horizontal distance from the swarm's centroid (the milling circle's radius), m.
    pub circle_radius: f64,
    /// Coefficient of variation of those distances (0 on a perfect circle), 1.
    pub circle_cv: f64,
    /// Mean depth below the surface, m.
    pub mean_depth: f64,
    /// Robots with steady LEDs on (sync: flashing now; search: searching).
    pub lit: usize,
    /// Robots flashing at 15 Hz (search: alerting).
    pub flashing: usize,
    /// Robots with LEDs off (search: gathering).
    pub dark: usize,
    /// Complete flash rounds (every robot's k-th LED onset seen), rounds.
    pub rounds: usize,
    /// Standard deviation of the onset times of the last complete round, s.
    pub flash_spread: f64,
    /// First time a robot flashed at 15 Hz (search: first detection), s.
    pub first_alert: Option<f64>,
    /// First time no robot was searching (everyone gathering or alerting), s.
    pub all_alerted: Option<f64>,
    /// First time every robot flashed (everyone at the source), s.
    pub all_alerting: Option<f64>,
}

/// The CSV header of [`Sample::csv_row`].
pub const CSV_HEADER: &str =
    "time_s,robots,hull_volume_m3,density_per_m3,mean_nnd_m,neighbours_seen,circle_radius_m,circle_cv,mean_depth_m,\
lit,flashing,dark,rounds,flash_spread_s,first_alert_s,all_alerted_s,all_alerting_s";

impl Sample {
    /// The sample as a CSV row in the order of [`CSV_HEADER`] (empty cells for NaN and
    /// phases not reached).
    pub fn csv_row(&self) -> String {
        let f = |x: f64| if x.is_finite() { format!("{x:.6}") } else { String::new() };
        let o = |x: Option<f64>| x.map(|t| format!("{t:.2}")).unwrap_or_default();
        format!(
            "{:.2},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            self.time,
            self.robots,
            f(self.hull_volume),
            f(self.density),
            f(self.mean_nnd),
            f(self.neighbours_seen),
            f(self.circle_radius),
            f(self.circle_cv),
            f(self.mean_depth),
            self.lit,
            self.flashing,
            self.dark,
            self.rounds,
            f(self.flash_spread),
            o(self.first_alert),
            o(self.all_alerted),
            o(self.all_alerting)
        )
    }
}

/// Most robots whose hull volume [`SwarmMetrics`] computes (the hull is O(n^4)).
pub const MAX_HULL_ROBOTS: usize = 40;

/// A running swarm's metrics, from what an observer of the tank sees.
#[derive(Clone, Debug, Default)]
pub struct SwarmMetrics {
    /// LED onsets (steady on after off) per robot, s.
    onsets: Vec<Vec<f64>>,
    /// Each robot's LEDs at the last observation (on = steady).
    lit: Vec<bool>,
    /// Mean neighbours seen at the last readings.
    seen: f64,
    first_alert: Option<f64>,
    all_alerted: Option<f64>,
    all_alerting: Option<f64>,
}

impl SwarmMetrics {
    /// Metrics of a swarm of `robots`.
    pub fn new(robots: usize) -> Self {
        Self { onsets: vec![Vec::new(); robots], lit: vec![false; robots], seen: f64::NAN, ..Self::default() }
    }

    /// Notes the robots' commands at `time` s (call whenever commands may have changed:
    /// LED onsets are timed to the call).
    pub fn observe_commands(&mut self, time: f64, commands: &[&BluebotCommand]) {
        let signals: Vec<Signal> = commands.iter().map(|c| Signal::of(c)).collect();
        for (i, s) in signals.iter().enumerate().take(self.lit.len()) {
            let on = *s == Signal::Steady;
            if on && !self.lit[i] {
                self.onsets[i].push(time);
            }
            self.lit[i] = on;
        }
        let n = signals.len();
        let count = |k: Signal| signals.iter().filter(|s| **s == k).count();
        if n > 0 {
            if count(Signal::Flashing) > 0 && self.first_alert.is_none() {
                self.first_alert = Some(time);
            }
            if self.first_alert.is_some() && count(Signal::Steady) == 0 && self.all_alerted.is_none() {
                self.all_alerted = Some(time);
            }
            if count(Signal::Flashing) == n && self.all_alerting.is_none() {
                self.all_alerting = Some(time);
            }
        }
    }

    /// Notes the robots' readings (neighbours seen).
    pub fn observe_readings(&mut self, readings: &[&BluebotSensors]) {
        if !readings.is_empty() {
            self.seen = readings.iter().map(|r| r.neighbours.len() as f64).sum::<f64>() / readings.len() as f64;
        }
    }

    /// The sample at `time` s: `positions` are the robots in the tank (tank frame, m),
    /// `depths` their depths below the surface (m), `commands` their current commands.
    pub fn sample(&self, time: f64, positions: &[Vector3<f64>], depths: &[f64], commands: &[&BluebotCommand]) -> Sample {
        let n = positions.len();
        let hull_volume = if n <= MAX_HULL_ROBOTS { hull_volume(positions) } else { f64::NAN };
        let density = if hull_volume > 0.0 { n as f64 / hull_volume } else { f64::NAN };
        let (circle_radius, circle_cv) = circle(positions);
        let mean_depth = if depths.is_empty() { f64::NAN } else { depths.iter().sum::<f64>() / depths.len() as f64 };
        let signals: Vec<Signal> = commands.iter().map(|c| Signal::of(c)).collect();
        let count = |k: Signal| signals.iter().filter(|s| **s == k).count();
        let rounds = self.onsets.iter().map(Vec::len).min().unwrap_or(0);
        let flash_spread = if rounds == 0 || self.onsets.len() < 2 {
            f64::NAN
        } else {
            let t: Vec<f64> = self.onsets.iter().map(|o| o[rounds - 1]).collect();
            let mean = t.iter().sum::<f64>() / t.len() as f64;
            (t.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / t.len() as f64).sqrt()
        };
        Sample {
            time,
            robots: n,
            hull_volume,
            density,
            mean_nnd: mean_nnd(positions),
            neighbours_seen: self.seen,
            circle_radius,
            circle_cv,
            mean_depth,
            lit: count(Signal::Steady),
            flashing: count(Signal::Flashing),
            dark: count(Signal::Dark),
            rounds,
            flash_spread,
            first_alert: self.first_alert,
            all_alerted: self.all_alerted,
            all_alerting: self.all_alerting,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hull_volume_by_hand() {
        let v = |x, y, z| Vector3::new(x, y, z);
        let cube: Vec<_> = (0..8).map(|i| v(f64::from(i & 1), f64::from((i >> 1) & 1), f64::from((i >> 2) & 1))).collect();
        assert!((hull_volume(&cube) - 1.0).abs() < 1e-9, "{}", hull_volume(&cube));
        let mut inside = cube.clone();
        inside.push(v(0.5, 0.5, 0.5));
        inside.push(v(0.5, 0.5, 0.0));
        assert!((hull_volume(&inside) - 1.0).abs() < 1e-9);
        let tetra = [v(0., 0., 0.), v(1., 0., 0.), v(0., 1., 0.), v(0., 0., 1.)];
        assert!((hull_volume(&tetra) - 1.0 / 6.0).abs() < 1e-12);
        let flat = [v(0., 0., 0.), v(1., 0., 0.), v(0., 1., 0.), v(1., 1., 0.)];
        assert_eq!(hull_volume(&flat), 0.0);
    }

    #[test]
    fn nnd_and_circle_by_hand() {
        let v = |x, y| Vector3::new(x, y, 0.3);
        let pts = [v(0.0, 0.0), v(1.0, 0.0), v(3.0, 0.0)];
        assert!((mean_nnd(&pts) - (1.0 + 1.0 + 2.0) / 3.0).abs() < 1e-12);
        let ring: Vec<_> = (0..6).map(|i| v(2.0 + 0.5 * (f64::from(i)).cos(), 1.0 + 0.5 * f64::from(i).sin())).collect();
        let (r, cv) = circle(&ring);
        assert!(r > 0.4 && r < 0.6 && cv < 0.2, "{r} {cv}");
    }

    #[test]
    fn swarm_metrics_follow_onsets_and_search_phases() {
        let on = BluebotCommand { leds: true, ..BluebotCommand::default() };
        let off = BluebotCommand::default();
        let flash = BluebotCommand { flashing: true, ..BluebotCommand::default() };
        let mut m = SwarmMetrics::new(2);
        m.observe_commands(0.0, &[&off, &off]);
        m.observe_commands(1.0, &[&on, &off]);
        m.observe_commands(2.0, &[&on, &on]);
        m.observe_commands(3.0, &[&off, &off]);
        let p = [Vector3::new(0.0, 0.0, 0.5), Vector3::new(1.0, 0.0, 0.5)];
        let s = m.sample(3.0, &p, &[0.4, 0.6], &[&off, &off]);
        assert_eq!((s.rounds, s.robots, s.lit, s.dark), (1, 2, 0, 2));
        assert!((s.flash_spread - 0.5).abs() < 1e-12, "onsets 1 and 2 s: {}", s.flash_spread);
        assert!((s.mean_nnd - 1.0).abs() < 1e-12 && (s.mean_depth - 0.5).abs() < 1e-12);
        assert!(s.hull_volume == 0.0 && s.density.is_nan(), "two robots have no hull");
        assert_eq!(s.first_alert, None);
        // Search: one alerts at 4 s, the other stops searching (gathers) at 5 s and alerts at 6 s.
        m.observe_commands(4.0, &[&flash, &on]);
        m.observe_commands(5.0, &[&flash, &off]);
        m.observe_commands(6.0, &[&flash, &flash]);
        let s = m.sample(6.0, &p, &[0.4, 0.6], &[&flash, &flash]);
        assert_eq!((s.first_alert, s.all_alerted, s.all_alerting, s.flashing), (Some(4.0), Some(5.0), Some(6.0), 2));
        assert_eq!(s.csv_row().split(',').count(), CSV_HEADER.split(',').count());
        m.observe_readings(&[
            &BluebotSensors { neighbours: vec![Default::default(); 3], ..Default::default() },
            &BluebotSensors::default(),
        ]);
        assert_eq!(m.sample(6.0, &p, &[], &[]).neighbours_seen, 1.5);
    }
}
