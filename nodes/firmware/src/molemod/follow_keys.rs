//! Searches for one phase of the follow down after the push over (issue #18,
//! mole-followdown2, "route Z"'s second half): with one head clamped, a chain of keys, each
//! the configuration with the most room ([`room`]) in a window of the joints round the last
//! key ([`key_near`]) with one joint (the key's driver) set to the key's value, each key
//! joined to the last by the firmware's straight phase or a short RRT-connect ([`join`]).
//! As mole-keys' windowed search (docs/molemod_execution.md, "The way into the C/A column,
//! by the body's turn"), kept here as code. And what found the follow down's hand-over where
//! those keys stop: the widest path of the clamped half and the body on a grid of their four
//! joints ([`widest_passage`]), the far head's two joints along it layer by layer
//! ([`far_head_along`]), joined step by step ([`passage_phase`]). The limits are any
//! [`FollowLimits`]; the follow down uses [`super::after_push::limits`].

use super::follow::{clearances_in, links, loads, phase_ok, search_phase, Base, FollowLimits, Grip, CLAMP_TOLERANCE};
use super::lift::{LiftJoints, PRISMATIC, TRAVEL};

/// A window of the joints round the last key: every prismatic joint within `travel` (m) of
/// its value there in steps of `travel_step` (m), every pitch within `pitch` (rad) in steps
/// of `pitch_step` (rad), each within its range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Window {
    /// Half the width of a prismatic joint's window, m.
    pub travel: f64,
    /// The step of a prismatic joint in it, m.
    pub travel_step: f64,
    /// Half the width of a pitch's window, rad.
    pub pitch: f64,
    /// The step of a pitch in it, rad.
    pub pitch_step: f64,
}

/// The room of `q` with `grip` clamped: the least clearance of every pair but the clamped
/// head's own (m), if `q` keeps every limit of `lim` with no pair allowed to touch (the
/// margin, the ranges, the static loads; the clamped head within
/// [`CLAMP_TOLERANCE`] of its wall, as [`FollowLimits::check`]). `None` otherwise.
pub fn room(grip: &Grip, lim: &FollowLimits, q: &LiftJoints) -> Option<f64> {
    if !lim.in_range(q) {
        return None;
    }
    let l = links(grip, q);
    let based = if grip.base == Base::Front { 0 } else { 2 };
    let d = clearances_in(lim.blocks, &l);
    if d[based] < -CLAMP_TOLERANCE {
        return None;
    }
    let least = d.iter().enumerate().filter(|(i, _)| *i != based).map(|(_, v)| *v).fold(f64::INFINITY, f64::min);
    if least < lim.margin {
        return None;
    }
    let (torque, force) = loads(grip, &l, lim.down);
    (torque.iter().all(|t| *t <= lim.torque) && force.iter().all(|f| *f <= lim.force)).then_some(least)
}

/// The values a joint `i` takes in `window` round `v`, within its range.
fn window_values(i: usize, v: f64, window: &Window, lim: &FollowLimits) -> Vec<f64> {
    let (half, step, lo, hi) = if PRISMATIC[i] {
        (window.travel, window.travel_step, 0.0, TRAVEL)
    } else {
        (window.pitch, window.pitch_step, -lim.pitch, lim.pitch)
    };
    let n = (half / step).round() as i32;
    let mut out: Vec<f64> = (-n..=n).map(|k| (v + step * f64::from(k)).clamp(lo, hi)).collect();
    out.dedup_by(|a, b| (*a - *b).abs() < 1e-12);
    out
}

/// A key: the joints it sets (those flagged) and their values (the rest ignored).
pub type Key = ([bool; 6], LiftJoints);

/// The key next to `from`: the joints `key` sets at its values, every other joint on
/// `window`'s grid round its value in `from`; the configuration with the most [`room`], and
/// that room (m). `None` if none keeps the limits.
pub fn key_near(grip: &Grip, lim: &FollowLimits, from: &LiftJoints, key: &Key, window: &Window) -> Option<(LiftJoints, f64)> {
    let values: Vec<Vec<f64>> = (0..6).map(|i| if key.0[i] { vec![key.1[i]] } else { window_values(i, from[i], window, lim) }).collect();
    let mut best: Option<(LiftJoints, f64)> = None;
    for &a in &values[0] {
        for &b in &values[1] {
            for &c in &values[2] {
                for &d in &values[3] {
                    for &e in &values[4] {
                        for &f in &values[5] {
                            let q = [a, b, c, d, e, f];
                            if let Some(r) = room(grip, lim, &q) {
                                if best.is_none_or(|x| r > x.1) {
                                    best = Some((q, r));
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    best
}

/// One phase from `from` to `to` with `grip` clamped: the firmware's straight phase if it
/// keeps `lim` (the pairs closer than the margin at `from` may touch), else RRT-connect
/// ([`search_phase`], `iterations`, `seed`). The rows from `from` on; `None` if neither.
pub fn join(grip: &Grip, lim: &FollowLimits, from: &LiftJoints, to: &LiftJoints, iterations: usize, seed: u64) -> Option<Vec<LiftJoints>> {
    if phase_ok(grip, lim, &lim.touching(grip, from), from, to) {
        return Some(vec![*from, *to]);
    }
    if iterations == 0 {
        return None;
    }
    search_phase(grip, lim, from, to, iterations, seed)
}

/// What [`keyed`] found.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyedRun {
    /// The rows from the start on, every key and the RRT-connect rows between them.
    pub rows: Vec<LiftJoints>,
    /// Each key reached: its configuration and its room, m.
    pub keys: Vec<(LiftJoints, f64)>,
    /// Why it stopped short of the last key, if it did: the key's index and the reason.
    pub stop: Option<(usize, &'static str)>,
}

/// From `start` with `grip` clamped, the configurations of `keys`, each [`key_near`] the last
/// one in `window` and joined to it by [`join`]
/// (`rrt`: iterations and seed); it stops at the first key not found or not joined, or after
/// the first key where `done` holds.
pub fn keyed(
    grip: &Grip,
    lim: &FollowLimits,
    start: &LiftJoints,
    keys: &[Key],
    window: &Window,
    rrt: (usize, u64),
    done: impl Fn(&LiftJoints) -> bool,
) -> KeyedRun {
    let (iterations, seed) = rrt;
    let mut run = KeyedRun { rows: vec![*start], keys: Vec::new(), stop: None };
    let mut q = *start;
    for (k, key) in keys.iter().enumerate() {
        let Some((next, r)) = key_near(grip, lim, &q, key, window) else {
            run.stop = Some((k, "no key in the window"));
            return run;
        };
        let Some(path) = join(grip, lim, &q, &next, iterations, seed) else {
            run.stop = Some((k, "no phase to the key"));
            return run;
        };
        run.rows.extend(path.iter().skip(1));
        run.keys.push((next, r));
        q = next;
        if done(&q) {
            return run;
        }
    }
    run
}

/// Keys setting joint `driver` alone from `from` to `to` (its units) in steps of at most
/// `step`, `from` left out.
pub fn ramp(driver: usize, from: f64, to: f64, step: f64) -> Vec<Key> {
    let n = ((to - from).abs() / step).ceil().max(1.0) as i32;
    (1..=n)
        .map(|k| {
            let mut q = [0.0; 6];
            q[driver] = from + (to - from) * f64::from(k) / f64::from(n);
            (std::array::from_fn(|i| i == driver), q)
        })
        .collect()
}

/// The room of the part of the mole next to the clamped head `grip` at `q`: the least of the
/// body's clearance from the blocks, the clamped head's from the body and its universal
/// joint's (disc and both rods) from the blocks, m; the rest of the chain cannot add room.
pub fn near_room(grip: &Grip, lim: &FollowLimits, q: &LiftJoints) -> f64 {
    let d = clearances_in(lim.blocks, &links(grip, q));
    match grip.base {
        Base::Front => d[1].min(d[3]).min(d[6]),
        Base::Rear => d[1].min(d[4]).min(d[7]),
    }
}

/// The room of the clamped half and the far universal joint at `q`: [`near_room`] and the
/// far joint's disc from the blocks, m (its rods and the far head left out).
pub fn half_room(grip: &Grip, lim: &FollowLimits, q: &LiftJoints) -> f64 {
    use super::follow::{point_clearance_in, JOINT_HALF};
    let l = links(grip, q);
    let far = match grip.base {
        Base::Front => l.joint_rear,
        Base::Rear => l.joint_front,
    };
    near_room(grip, lim, q).min(point_clearance_in(lim.blocks, far) - JOINT_HALF)
}

/// The widest passage of the clamped half between two configurations: with `grip` clamped,
/// over a grid of the clamped half's three joints and the body's other prismatic joint (which
/// places the far universal joint; the prismatic joints every `travel_step` m, the clamped
/// half's pitch every `pitch_step` rad over its range; the far head left out), the largest
/// room ([`half_room`]) a path of neighbouring cells (80 each) keeps from the cell nearest
/// `from` to the cell nearest `to`, m, with that path's cells (joints; the far head's 0) and
/// the one where its least room is. A continuous path keeping `r` passes cells within half a
/// step of it, which keep at least `r` less [`passage_bound`].
pub fn widest_passage(
    grip: &Grip,
    lim: &FollowLimits,
    from: &LiftJoints,
    to: &LiftJoints,
    travel_step: f64,
    pitch_step: f64,
) -> (f64, Vec<LiftJoints>, LiftJoints) {
    use std::collections::BinaryHeap;
    // The joints of the grid's four axes: three prismatic, then the pitch.
    let axes: [usize; 4] = match grip.base {
        Base::Front => [0, 2, 3, 1],
        Base::Rear => [5, 3, 2, 4],
    };
    let n = (TRAVEL / travel_step).round() as usize + 1;
    let m = (2.0 * lim.pitch / pitch_step).floor() as usize + 1;
    let sizes = [n, n, n, m];
    let joints = |c: [usize; 4]| {
        let mut q = [0.0; 6];
        for a in 0..3 {
            q[axes[a]] = travel_step * c[a] as f64;
        }
        q[axes[3]] = -lim.pitch + pitch_step * c[3] as f64;
        q
    };
    let cell = |q: &LiftJoints| -> [usize; 4] {
        std::array::from_fn(|a| {
            let v = if a < 3 { q[axes[a]] / travel_step } else { (q[axes[3]] + lim.pitch) / pitch_step };
            (v.round().max(0.0) as usize).min(sizes[a] - 1)
        })
    };
    let index = |c: [usize; 4]| ((c[0] * n + c[1]) * n + c[2]) * m + c[3];
    let total = n * n * n * m;
    let mut rooms = vec![f32::NAN; total];
    let mut room_at = |c: [usize; 4]| {
        let x = index(c);
        if rooms[x].is_nan() {
            rooms[x] = half_room(grip, lim, &joints(c)) as f32;
        }
        f64::from(rooms[x])
    };
    // Keys ordered by room (nanometres, as integers) for the max-heap.
    let key = |r: f64| (r * 1e9) as i64;
    let (start, goal) = (cell(from), cell(to));
    let mut best = vec![i64::MIN; total];
    let mut parent = vec![usize::MAX; total];
    let mut heap = BinaryHeap::new();
    let r0 = key(room_at(start));
    best[index(start)] = r0;
    heap.push((r0, start));
    while let Some((r, c)) = heap.pop() {
        if r < best[index(c)] {
            continue;
        }
        if c == goal {
            break;
        }
        for d in 0..81usize {
            let step = [d / 27 % 3, d / 9 % 3, d / 3 % 3, d % 3];
            if step == [1, 1, 1, 1] {
                continue;
            }
            let mut next = c;
            let mut inside = true;
            for a in 0..4 {
                let v = c[a] as i64 + step[a] as i64 - 1;
                if v < 0 || v >= sizes[a] as i64 {
                    inside = false;
                    break;
                }
                next[a] = v as usize;
            }
            if !inside {
                continue;
            }
            let through = r.min(key(room_at(next)));
            if through > best[index(next)] {
                best[index(next)] = through;
                parent[index(next)] = index(c);
                heap.push((through, next));
            }
        }
    }
    // The widest path back from the goal, and the cell where it is narrowest.
    let decode = |mut x: usize| {
        let d = x % m;
        x /= m;
        let c2 = x % n;
        x /= n;
        [x / n, x % n, c2, d]
    };
    let mut cells = vec![goal];
    let mut at = index(goal);
    while at != index(start) && parent[at] != usize::MAX {
        at = parent[at];
        cells.push(decode(at));
    }
    cells.reverse();
    let narrowest = cells.iter().copied().min_by(|a, b| room_at(*a).total_cmp(&room_at(*b))).unwrap_or(goal);
    let path = cells.iter().map(|c| joints(*c)).collect();
    (best[index(goal)] as f64 * 1e-9, path, joints(narrowest))
}

/// How much more room than the nearest cell of [`widest_passage`]'s grid a configuration
/// within half a step of it can have, m: half a step of each of the three prismatic joints
/// and half a pitch step at the far joint ([`super::lift::LEVER`] + [`TRAVEL`] on either side
/// of the body), which is farther from the pivot than the body's corners.
pub fn passage_bound(travel_step: f64, pitch_step: f64) -> f64 {
    use super::lift::LEVER;
    1.5 * travel_step + 0.5 * pitch_step * 2.0 * (LEVER + TRAVEL)
}

/// The far head along a path of the rest of the chain: for each configuration of `path`
/// (the clamped half and the body's joints as [`widest_passage`] gives them), the far head's
/// two joints (its lever every `grid.head_travel_step` m, its pitch every
/// `grid.head_pitch_step` rad over their ranges) with the most [`room`] a sequence can keep,
/// each cell at most `grid.head_reach` steps of each (lever, pitch) from the last one's, the
/// first from `start`'s; it ends at the cell of `path`'s last configuration where `end` holds
/// with the most room. The least room it keeps (m; negative infinity if none keeps the
/// limits) and its rows, the first `start`.
pub fn far_head_along(
    grip: &Grip,
    lim: &FollowLimits,
    path: &[LiftJoints],
    start: &LiftJoints,
    end: impl Fn(&LiftJoints) -> bool,
    grid: &PassageGrid,
) -> (f64, Vec<LiftJoints>) {
    let (travel_step, pitch_step, reach) = (grid.head_travel_step, grid.head_pitch_step, grid.head_reach);
    let (lever, pitch) = match grip.base {
        Base::Front => (5, 4),
        Base::Rear => (0, 1),
    };
    let n = (TRAVEL / travel_step).round() as usize + 1;
    let m = (2.0 * lim.pitch / pitch_step).floor() as usize + 1;
    let at = |q: &LiftJoints| {
        let i = ((q[lever] / travel_step).round().max(0.0) as usize).min(n - 1);
        let k = (((q[pitch] + lim.pitch) / pitch_step).round().max(0.0) as usize).min(m - 1);
        i * m + k
    };
    let with = |q: &LiftJoints, c: usize| {
        let mut r = *q;
        r[lever] = travel_step * (c / m) as f64;
        r[pitch] = -lim.pitch + pitch_step * (c % m) as f64;
        r
    };
    // Layer by layer: the best least room reaching each cell, and where from.
    let none = f64::NEG_INFINITY;
    let mut best = vec![none; n * m];
    let first = at(start);
    best[first] = room(grip, lim, start).unwrap_or(none);
    let mut from: Vec<Vec<usize>> = Vec::new();
    for q in path {
        let mut next = vec![none; n * m];
        let mut back = vec![usize::MAX; n * m];
        for c in 0..n * m {
            let (i, k) = ((c / m) as i64, (c % m) as i64);
            let mut from_best = (none, usize::MAX);
            for di in -reach.0..=reach.0 {
                for dk in -reach.1..=reach.1 {
                    let (pi, pk) = (i + di, k + dk);
                    if pi < 0 || pk < 0 || pi >= n as i64 || pk >= m as i64 {
                        continue;
                    }
                    let p = (pi as usize) * m + pk as usize;
                    if best[p] > from_best.0 {
                        from_best = (best[p], p);
                    }
                }
            }
            if from_best.0 == none {
                continue;
            }
            let r = room(grip, lim, &with(q, c)).unwrap_or(none);
            if r > none {
                next[c] = from_best.0.min(r);
                back[c] = from_best.1;
            }
        }
        best = next;
        from.push(back);
    }
    let Some(tail) = path.last() else { return (none, Vec::new()) };
    let Some(last) = (0..n * m).filter(|c| best[*c] > none && end(&with(tail, *c))).max_by(|a, b| best[*a].total_cmp(&best[*b])) else {
        return (none, Vec::new());
    };
    let least = best[last];
    // The cells of the path's configurations, from the last back.
    let mut cells = vec![last];
    for back in from.iter().rev().take(path.len() - 1) {
        let c = back[cells[cells.len() - 1]];
        cells.push(c);
    }
    cells.reverse();
    let mut rows = vec![*start];
    rows.extend(path.iter().zip(&cells).map(|(q, c)| with(q, *c)));
    (least, rows)
}

/// The grids of [`passage_phase`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PassageGrid {
    /// [`widest_passage`]'s prismatic step, m.
    pub travel_step: f64,
    /// [`widest_passage`]'s pitch step, rad.
    pub pitch_step: f64,
    /// [`far_head_along`]'s lever step, m.
    pub head_travel_step: f64,
    /// [`far_head_along`]'s pitch step, rad.
    pub head_pitch_step: f64,
    /// [`far_head_along`]'s reach, steps of the lever and of the pitch.
    pub head_reach: (i64, i64),
}

impl PassageGrid {
    /// The grids that found the hand-over's phase 3: 1.5 mm and 0.01 rad for the passage, 1 mm
    /// and 0.01 rad for the far head, which moves up to 3 mm and 0.05 rad from one to the next.
    pub fn found() -> Self {
        Self { travel_step: 0.0015, pitch_step: 0.01, head_travel_step: 0.001, head_pitch_step: 0.01, head_reach: (3, 5) }
    }
}

/// One phase from `from` to `to` with `grip` clamped by the passage: [`widest_passage`] for
/// the clamped half and the body, cut at its first configuration whose clamped pitch is at
/// or past `cut` (rad; towards `to`'s) and from there straight (those four joints) to
/// `to`'s; [`far_head_along`] along it, ending anywhere; each step and the last to `to`
/// joined by [`join`] (`rrt`). The rows from `from` on; `Err` says which step failed.
pub fn passage_phase(
    grip: &Grip,
    lim: &FollowLimits,
    from: &LiftJoints,
    to: &LiftJoints,
    grid: &PassageGrid,
    cut: f64,
    rrt: (usize, u64),
) -> Result<Vec<LiftJoints>, &'static str> {
    let (_, mut path, _) = widest_passage(grip, lim, from, to, grid.travel_step, grid.pitch_step);
    let (pitch, head) = match grip.base {
        Base::Front => (1, [4, 5]),
        Base::Rear => (4, [0, 1]),
    };
    let rising = to[pitch] >= from[pitch];
    if let Some(k) = path.iter().position(|q| if rising { q[pitch] >= cut } else { q[pitch] <= cut }) {
        path.truncate(k + 1);
        let last = path[k];
        let steps = ((to[pitch] - last[pitch]).abs() / grid.pitch_step).ceil().max(1.0) as usize;
        for j in 1..=steps {
            let f = j as f64 / steps as f64;
            path.push(std::array::from_fn(|i| if head.contains(&i) { 0.0 } else { last[i] + (to[i] - last[i]) * f }));
        }
    }
    let (least, rows) = far_head_along(grip, lim, &path, from, |_| true, grid);
    if least < lim.margin {
        return Err("no far head along the passage");
    }
    let mut out = vec![*from];
    for pair in rows.windows(2).chain(std::iter::once(&[rows[rows.len() - 1], *to][..])) {
        let p = join(grip, lim, &pair[0], &pair[1], rrt.0, rrt.1).ok_or("a step not joined")?;
        out.extend(p.iter().skip(1));
    }
    Ok(out)
}
