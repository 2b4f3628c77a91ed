//! Optimal gated assignment of tracks to detections.
//!
//! The gating graph is split into connected clusters (most are one track and one
//! detection), and each cluster is solved with the Hungarian algorithm (shortest
//! augmenting paths with potentials, O(n^2 m)). Leaving a track unassigned costs its
//! `miss_cost`, so a gated pair is used only when that lowers the total.

/// An allowed track-detection pair and its cost.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Candidate {
    /// Track (row) index.
    pub track: usize,
    /// Detection (column) index.
    pub detection: usize,
    /// Cost of the pair (lower is better).
    pub cost: f64,
}

/// Reusable assignment solver.
#[derive(Default)]
pub struct Assigner {
    parent: Vec<usize>,
    cluster_tracks: Vec<usize>,
    cluster_detections: Vec<usize>,
    local_row: Vec<usize>,
    local_col: Vec<usize>,
    matrix: Vec<f64>,
}

impl Assigner {
    /// Minimum-cost matching. `miss_cost[t]` is the cost of leaving track `t`
    /// unassigned; candidates must have `cost < miss_cost[track]` to be useful.
    /// Returns `(track, detection)` pairs sorted by track.
    pub fn solve(&mut self, tracks: usize, detections: usize, candidates: &[Candidate], miss_cost: &[f64]) -> Vec<(usize, usize)> {
        // Union-find over tracks 0..tracks and detections tracks..tracks+detections.
        self.parent.clear();
        self.parent.extend(0..tracks + detections);
        for c in candidates {
            let (a, b) = (self.find(c.track), self.find(tracks + c.detection));
            if a != b {
                self.parent[a.max(b)] = a.min(b);
            }
        }
        let mut pairs = Vec::new();
        let mut seen_root = vec![false; tracks + detections];
        for t in 0..tracks {
            let root = self.find(t);
            if std::mem::replace(&mut seen_root[root], true) {
                continue;
            }
            self.solve_cluster(root, tracks, detections, candidates, miss_cost, &mut pairs);
        }
        pairs.sort_unstable();
        pairs
    }

    fn find(&mut self, mut i: usize) -> usize {
        while self.parent[i] != i {
            self.parent[i] = self.parent[self.parent[i]];
            i = self.parent[i];
        }
        i
    }

    fn solve_cluster(
        &mut self,
        root: usize,
        tracks: usize,
        detections: usize,
        candidates: &[Candidate],
        miss_cost: &[f64],
        pairs: &mut Vec<(usize, usize)>,
    ) {
        self.cluster_tracks.clear();
        self.cluster_detections.clear();
        self.local_row.resize(tracks, usize::MAX);
        self.local_col.resize(detections, usize::MAX);
        for t in 0..tracks {
            if self.find(t) == root {
                self.local_row[t] = self.cluster_tracks.len();
                self.cluster_tracks.push(t);
            }
        }
        for d in 0..detections {
            if self.find(tracks + d) == root {
                self.local_col[d] = self.cluster_detections.len();
                self.cluster_detections.push(d);
            }
        }
        let (rows, real_cols) = (self.cluster_tracks.len(), self.cluster_detections.len());
        if real_cols == 0 {
            return;
        }
        // Columns: the real detections, then one private "miss" column per track.
        let cols = real_cols + rows;
        let forbidden = miss_cost.iter().fold(0.0f64, |m, c| m.max(*c)) * 4.0 * (rows as f64 + 1.0) + 1.0;
        self.matrix.clear();
        self.matrix.resize(rows * cols, forbidden);
        for (r, &t) in self.cluster_tracks.iter().enumerate() {
            self.matrix[r * cols + real_cols + r] = miss_cost[t];
        }
        for c in candidates {
            let r = self.local_row[c.track];
            if r < rows && self.cluster_tracks[r] == c.track {
                let col = self.local_col[c.detection];
                self.matrix[r * cols + col] = c.cost;
            }
        }
        for (r, col) in hungarian(&self.matrix, rows, cols) {
            if col < real_cols {
                pairs.push((self.cluster_tracks[r], self.cluster_detections[col]));
            }
        }
    }
}

/// Minimum-cost assignment of every row to a distinct column of a dense row-major
/// `rows` x `cols` matrix (`rows <= cols`). Returns `(row, column)` pairs.
pub fn hungarian(cost: &[f64], rows: usize, cols: usize) -> Vec<(usize, usize)> {
    debug_assert!(rows <= cols && cost.len() == rows * cols);
    // 1-based potentials and matching as in the classic formulation; column 0 is virtual.
    let mut u = vec![0.0; rows + 1];
    let mut v = vec![0.0; cols + 1];
    let mut row_of_col = vec![0usize; cols + 1];
    let mut way = vec![0usize; cols + 1];
    let mut min_slack = vec![0.0; cols + 1];
    let mut used = vec![false; cols + 1];
    for row in 1..=rows {
        row_of_col[0] = row;
        let mut col0 = 0;
        min_slack.fill(f64::INFINITY);
        used.fill(false);
        loop {
            used[col0] = true;
            let row0 = row_of_col[col0];
            let mut delta = f64::INFINITY;
            let mut col1 = 0;
            for col in 1..=cols {
                if used[col] {
                    continue;
                }
                let slack = cost[(row0 - 1) * cols + col - 1] - u[row0] - v[col];
                if slack < min_slack[col] {
                    min_slack[col] = slack;
                    way[col] = col0;
                }
                if min_slack[col] < delta {
                    delta = min_slack[col];
                    col1 = col;
                }
            }
            for col in 0..=cols {
                if used[col] {
                    u[row_of_col[col]] += delta;
                    v[col] -= delta;
                } else {
                    min_slack[col] -= delta;
                }
            }
            col0 = col1;
            if row_of_col[col0] == 0 {
                break;
            }
        }
        // Flip the augmenting path.
        loop {
            let col1 = way[col0];
            row_of_col[col0] = row_of_col[col1];
            col0 = col1;
            if col0 == 0 {
                break;
            }
        }
    }
    (1..=cols).filter(|&c| row_of_col[c] != 0).map(|c| (row_of_col[c] - 1, c - 1)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn hungarian_hand_computed() {
        // Greedy takes (0,0)=1 then (1,1)=5 (total 6); optimal is (0,1)+(1,0) = 2+2 = 4.
        let cost = [1.0, 2.0, 2.0, 5.0];
        let mut pairs = hungarian(&cost, 2, 2);
        pairs.sort_unstable();
        assert_eq!(pairs, vec![(0, 1), (1, 0)]);
    }

    #[test]
    fn rectangular_and_miss_costs() {
        // Track 0 near detection 0 (cost 1), track 1 only near detection 0 (cost 2):
        // optimal leaves track 1 unassigned (miss cost 9) rather than track 0 (miss 9).
        let candidates = [
            Candidate { track: 0, detection: 0, cost: 1.0 },
            Candidate { track: 1, detection: 0, cost: 2.0 },
            Candidate { track: 2, detection: 2, cost: 0.5 },
        ];
        let pairs = Assigner::default().solve(3, 3, &candidates, &[9.0, 9.0, 9.0]);
        assert_eq!(pairs, vec![(0, 0), (2, 2)]);
    }

    #[test]
    fn miss_is_preferred_over_an_expensive_swap() {
        // Tracks 0,1 and detections 0,1: (0,0)=1, (1,0)=1, (0,1)=8. Miss cost 5:
        // {(0,1),(1,0)} costs 9; {(0,0), miss 1} costs 6; {(1,0), miss 0} costs 6.
        let candidates = [
            Candidate { track: 0, detection: 0, cost: 1.0 },
            Candidate { track: 1, detection: 0, cost: 1.0 },
            Candidate { track: 0, detection: 1, cost: 8.0 },
        ];
        let pairs = Assigner::default().solve(2, 2, &candidates, &[5.0, 5.0]);
        assert_eq!(pairs.len(), 1);
    }

    fn brute_force(cost: &[f64], n: usize) -> f64 {
        fn rec(cost: &[f64], n: usize, row: usize, used: &mut Vec<bool>) -> f64 {
            if row == n {
                return 0.0;
            }
            let mut best = f64::INFINITY;
            for c in 0..n {
                if !used[c] {
                    used[c] = true;
                    best = best.min(cost[row * n + c] + rec(cost, n, row + 1, used));
                    used[c] = false;
                }
            }
            best
        }
        rec(cost, n, 0, &mut vec![false; n])
    }

    proptest! {
        // Fixed seed: the same cases every run.
        #![proptest_config(ProptestConfig {
            rng_seed: proptest::test_runner::RngSeed::Fixed(20261121),
            ..ProptestConfig::default()
        })]
        #[test]
        fn hungarian_matches_brute_force(n in 1usize..6, seed in prop::collection::vec(0.0f64..10.0, 36)) {
            let cost: Vec<f64> = seed[..n * n].to_vec();
            let pairs = hungarian(&cost, n, n);
            prop_assert_eq!(pairs.len(), n);
            let total: f64 = pairs.iter().map(|&(r, c)| cost[r * n + c]).sum();
            prop_assert!((total - brute_force(&cost, n)).abs() < 1e-9);
        }
    }
}
