//! Text pictures of a lattice, for task files and the CLI.
//!
//! One picture is one vertical `x`-`z` layer: rows top (highest `z`) first, one character
//! per cell: `.` empty, `#` block, `R` block with a robot, a digit `0`..`9` block with
//! the robot of that index. Blank lines and surrounding spaces are ignored. A 3-D lattice
//! is a list of such layers, one per `y`.

use super::{Cell, Dims, Lattice, LatticeError};

impl Lattice {
    /// Reads a 2-D lattice from one picture (see the module docs).
    pub fn from_picture(text: &str) -> Result<Lattice, LatticeError> {
        Self::from_layers(&[text])
    }

    /// Reads a lattice from one picture per `y` layer (all of the same size).
    ///
    /// Robots given by digits take those indices in order; `R` robots follow, in cell
    /// index order.
    pub fn from_layers<S: AsRef<str>>(layers: &[S]) -> Result<Lattice, LatticeError> {
        let grids: Vec<Vec<&str>> =
            layers.iter().map(|text| text.as_ref().lines().map(str::trim).filter(|l| !l.is_empty()).collect()).collect();
        let first = grids.first().ok_or_else(|| picture_error(1, 1, "no layers given"))?;
        let height = first.len();
        let width = first.first().map_or(0, |row| row.chars().count());
        if height == 0 || width == 0 {
            return Err(picture_error(1, 1, "empty picture"));
        }
        let mut lattice = Lattice::new(Dims::new(width, grids.len(), height))?;
        // (label, cell): label = digit, or 10 for `R`.
        let mut robots: Vec<(usize, usize, Cell)> = Vec::new();
        for (y, rows) in grids.iter().enumerate() {
            if rows.len() != height {
                return Err(picture_error(
                    rows.len().min(height) + 1,
                    1,
                    &format!("layer {y} has {} rows, layer 0 has {height}", rows.len()),
                ));
            }
            for (line, row) in rows.iter().enumerate() {
                let z = height - 1 - line;
                if row.chars().count() != width {
                    return Err(picture_error(line + 1, 1, &format!("row has {} cells, the first row has {width}", row.chars().count())));
                }
                for (x, ch) in row.chars().enumerate() {
                    let cell = Cell::new(x, y, z);
                    let label = match ch {
                        '.' => continue,
                        '#' => None,
                        'R' => Some(10),
                        d if d.is_ascii_digit() => Some(d as usize - '0' as usize),
                        other => {
                            return Err(picture_error(line + 1, x + 1, &format!("unknown cell character {other:?} (use . # R or a digit)")))
                        }
                    };
                    lattice.set_block(cell, true)?;
                    if let Some(label) = label {
                        robots.push((label, lattice.index_unchecked(&cell), cell));
                    }
                }
            }
        }
        robots.sort();
        for pair in robots.windows(2) {
            if pair[0].0 < 10 && pair[0].0 == pair[1].0 {
                return Err(picture_error(1, 1, &format!("robot digit {} used twice", pair[0].0)));
            }
        }
        for (_, _, cell) in robots {
            lattice.add_robot(cell)?;
        }
        Ok(lattice)
    }

    /// One picture per `y` layer (the inverse of [`Lattice::from_layers`]). Robots show as
    /// their index digit, or `R` from index 10 on.
    pub fn layer_pictures(&self) -> Vec<String> {
        (0..self.dims.y)
            .map(|y| {
                let mut text = String::new();
                for z in (0..self.dims.z).rev() {
                    for x in 0..self.dims.x {
                        text.push(self.cell_char(&Cell::new(x, y, z)));
                    }
                    text.push('\n');
                }
                text
            })
            .collect()
    }

    /// A picture for people: a 2-D lattice as rows; a 3-D lattice as its `y` layers side
    /// by side under `y=0  y=1 ...` headers.
    pub fn picture(&self) -> String {
        let layers = self.layer_pictures();
        if layers.len() == 1 {
            return layers.into_iter().next().unwrap_or_default();
        }
        let width = self.dims.x.max(4);
        let mut text = String::new();
        for y in 0..layers.len() {
            text.push_str(&format!("{:<width$}  ", format!("y={y}")));
        }
        text.push('\n');
        let rows: Vec<Vec<&str>> = layers.iter().map(|l| l.lines().collect()).collect();
        for line in 0..self.dims.z {
            for layer in &rows {
                text.push_str(&format!("{:<width$}  ", layer[line]));
            }
            text.push('\n');
        }
        text
    }

    fn cell_char(&self, cell: &Cell) -> char {
        match self.robot_at(cell) {
            Some(r) if r < 10 => char::from(b'0' + r as u8),
            Some(_) => 'R',
            None if self.has_block(cell) => '#',
            None => '.',
        }
    }
}

fn picture_error(line: usize, column: usize, reason: &str) -> LatticeError {
    LatticeError::Picture { line, column, reason: reason.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rows_top_first() {
        let lattice = Lattice::from_picture("\n  .#.\n  #1#\n  #R0\n").unwrap();
        assert_eq!(lattice.dims(), Dims::planar(3, 3));
        assert!(lattice.has_block(&Cell::planar(1, 2)));
        assert!(!lattice.has_block(&Cell::planar(0, 2)));
        // digit robots first (by digit), then R.
        assert_eq!(lattice.robots(), &[Cell::planar(2, 0), Cell::planar(1, 1), Cell::planar(1, 0)]);
        assert_eq!(lattice.picture(), ".#.\n#1#\n#20\n");
    }

    #[test]
    fn layers_round_trip_in_3d() {
        let layers = ["..\n#0\n", "#.\n##\n"];
        let lattice = Lattice::from_layers(&layers).unwrap();
        assert_eq!(lattice.dims(), Dims::new(2, 2, 2));
        assert!(lattice.has_block(&Cell::new(0, 1, 1)));
        assert_eq!(lattice.robots(), &[Cell::new(1, 0, 0)]);
        assert_eq!(lattice.layer_pictures(), vec!["..\n#0\n".to_string(), "#.\n##\n".to_string()]);
        assert!(lattice.picture().starts_with("y=0   y=1"));
    }

    #[test]
    fn reports_where_a_picture_is_wrong() {
        let err = Lattice::from_picture("..#\n#x#\n").unwrap_err();
        assert!(matches!(err, LatticeError::Picture { line: 2, column: 2, .. }), "{err}");
        let err = Lattice::from_picture("..#\n##\n").unwrap_err();
        assert!(matches!(err, LatticeError::Picture { line: 2, .. }), "{err}");
        let err = Lattice::from_layers(&["#\n#\n", "#\n"]).unwrap_err();
        assert!(err.to_string().contains("layer 1 has 1 rows"), "{err}");
        assert!(Lattice::from_picture("  \n").is_err());
        assert!(Lattice::from_picture("11\n").unwrap_err().to_string().contains("used twice"));
    }
}
