//! Start poses for a swarm that has no task-specific layout: a block of robots on a
//! hexagonal lattice (the densest packing, how Kilobots are put down by hand).

use super::Pose;

/// `count` robots on a hexagonal lattice of spacing `spacing` (world units), rows along x,
/// about as wide as high, centred on the origin, all facing +y.
pub fn hex_block(count: usize, spacing: f64) -> Vec<Pose> {
    let row_height = spacing * 3f64.sqrt() / 2.0;
    // Columns so that the block is about square: columns x spacing ~ rows x row height.
    let columns = ((count as f64 * row_height / spacing).sqrt().ceil() as usize).max(1);
    let rows = count.div_ceil(columns);
    let (width, height) = ((columns as f64 - 0.5) * spacing, (rows as f64 - 1.0) * row_height);
    (0..count)
        .map(|i| {
            let (row, column) = (i / columns, i % columns);
            let shift = if row % 2 == 1 { 0.5 * spacing } else { 0.0 };
            Pose {
                x: column as f64 * spacing + shift - 0.5 * width,
                y: row as f64 * row_height - 0.5 * height,
                theta: std::f64::consts::FRAC_PI_2,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_packed_centred_and_never_overlap() {
        for (count, spacing) in [(1, 1.0), (7, 1.0), (1024, 1.5), (1000, 1.2)] {
            let poses = hex_block(count, spacing);
            assert_eq!(poses.len(), count);
            let (mx, my) = poses.iter().fold((0.0, 0.0), |(x, y), p| (x + p.x / count as f64, y + p.y / count as f64));
            assert!(mx.abs() < spacing && my.abs() < spacing, "{count}: centre ({mx}, {my})");
            let mut nearest = f64::INFINITY;
            for (i, a) in poses.iter().enumerate().take(200) {
                for b in &poses[i + 1..] {
                    nearest = nearest.min((a.x - b.x).hypot(a.y - b.y));
                }
            }
            assert!(count == 1 || (nearest - spacing).abs() < 1e-9, "{count}: nearest {nearest}");
        }
    }
}
