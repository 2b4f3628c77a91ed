//! The flow-field file: a CSV whose first line carries the grid geometry.
//!
//! ```text
//! # flotilla_flow_field v1 nx=50 ny=50 x_min=-0.3 x_max=0.3 y_min=-0.3 y_max=0.3
//! ix,iy,mean_x,mean_y,std_x,std_y,count
//! 0,0,0.0125,-0.003,0.021,0.019,37
//! ...
//! ```
//! Velocities in m/s, extents in m. One row per cell, any order; a cell without a row
//! has zero mean, zero deviation and count 0. Lines starting with `#` after the first
//! are comments.

use super::{FlowCell, FlowFieldError, FlowGrid, GridExtent};
use nalgebra::Vector2;
use std::fmt::Write as _;
use std::path::Path;

const MAGIC: &str = "# flotilla_flow_field v1";
const COLUMNS: &str = "ix,iy,mean_x,mean_y,std_x,std_y,count";

impl FlowGrid {
    /// Reads a flow-field file.
    pub fn read_csv(path: &Path) -> Result<Self, FlowFieldError> {
        let text = std::fs::read_to_string(path).map_err(|source| FlowFieldError::Io { path: path.display().to_string(), source })?;
        Self::from_csv_str(&text).map_err(|e| e.in_file(path))
    }

    /// Writes this grid as a flow-field file.
    pub fn write_csv(&self, path: &Path) -> Result<(), FlowFieldError> {
        std::fs::write(path, self.to_csv_string()).map_err(|source| FlowFieldError::Io { path: path.display().to_string(), source })
    }

    /// Parses the text of a flow-field file.
    pub fn from_csv_str(text: &str) -> Result<Self, FlowFieldError> {
        let mut lines = text.lines().enumerate();
        let (_, first) = lines.next().ok_or_else(|| parse_err(1, "empty file"))?;
        let geometry = first.strip_prefix(MAGIC).ok_or_else(|| parse_err(1, &format!("first line must start with `{MAGIC}`")))?;
        let mut grid = parse_geometry(geometry)?;
        let mut seen_columns = false;
        let mut filled = vec![false; grid.nx() * grid.ny()];
        for (i, raw) in lines {
            let line_no = i + 1;
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if !seen_columns {
                if line.replace(' ', "") != COLUMNS {
                    return Err(parse_err(line_no, &format!("expected header `{COLUMNS}`")));
                }
                seen_columns = true;
                continue;
            }
            let (ix, iy, cell) = parse_row(line, line_no)?;
            let nx = grid.nx();
            let slot = grid
                .cell_mut(ix, iy)
                .ok_or_else(|| parse_err(line_no, &format!("cell ({ix}, {iy}) is outside the {nx} x {} grid", filled.len() / nx)))?;
            *slot = cell;
            if std::mem::replace(&mut filled[iy * nx + ix], true) {
                return Err(parse_err(line_no, &format!("cell ({ix}, {iy}) given twice")));
            }
        }
        if !seen_columns {
            return Err(parse_err(2, &format!("missing header `{COLUMNS}`")));
        }
        Ok(grid)
    }

    /// The text of the flow-field file for this grid (every cell, row-major).
    pub fn to_csv_string(&self) -> String {
        let e = self.extent();
        let mut out = format!(
            "{MAGIC} nx={} ny={} x_min={} x_max={} y_min={} y_max={}\n{COLUMNS}\n",
            self.nx(),
            self.ny(),
            e.x_min,
            e.x_max,
            e.y_min,
            e.y_max
        );
        for iy in 0..self.ny() {
            for ix in 0..self.nx() {
                let c = &self.cells()[iy * self.nx() + ix];
                // Writing to a String cannot fail.
                let _ = writeln!(out, "{ix},{iy},{},{},{},{},{}", c.mean.x, c.mean.y, c.std.x, c.std.y, c.count);
            }
        }
        out
    }
}

fn parse_err(line: usize, message: &str) -> FlowFieldError {
    FlowFieldError::Parse { file: None, line, message: message.to_owned() }
}

fn parse_geometry(text: &str) -> Result<FlowGrid, FlowFieldError> {
    let mut nx = None;
    let mut ny = None;
    let mut ext = [None; 4];
    const EXT_KEYS: [&str; 4] = ["x_min", "x_max", "y_min", "y_max"];
    for token in text.split_whitespace() {
        let (key, value) = token.split_once('=').ok_or_else(|| parse_err(1, &format!("expected key=value, got `{token}`")))?;
        let bad = |what: &str| parse_err(1, &format!("`{key}` must be {what}, got `{value}`"));
        match key {
            "nx" => nx = Some(value.parse::<usize>().map_err(|_| bad("a positive integer"))?),
            "ny" => ny = Some(value.parse::<usize>().map_err(|_| bad("a positive integer"))?),
            _ => {
                let slot = EXT_KEYS.iter().position(|k| *k == key).ok_or_else(|| parse_err(1, &format!("unknown key `{key}`")))?;
                let v: f64 = value.parse().map_err(|_| bad("a number (m)"))?;
                ext[slot] = Some(v);
            }
        }
    }
    let need = |v: Option<f64>, k: &str| v.ok_or_else(|| parse_err(1, &format!("missing `{k}`")));
    let extent = GridExtent {
        x_min: need(ext[0], "x_min")?,
        x_max: need(ext[1], "x_max")?,
        y_min: need(ext[2], "y_min")?,
        y_max: need(ext[3], "y_max")?,
    };
    let nx = nx.ok_or_else(|| parse_err(1, "missing `nx`"))?;
    let ny = ny.ok_or_else(|| parse_err(1, "missing `ny`"))?;
    FlowGrid::new(nx, ny, extent).map_err(|e| parse_err(1, &e.to_string()))
}

fn parse_row(line: &str, line_no: usize) -> Result<(usize, usize, FlowCell), FlowFieldError> {
    let fields: Vec<&str> = line.split(',').map(str::trim).collect();
    if fields.len() != 7 {
        return Err(parse_err(line_no, &format!("expected 7 fields, got {}", fields.len())));
    }
    let index = |i: usize, name: &str| {
        fields[i].parse::<usize>().map_err(|_| parse_err(line_no, &format!("`{name}` must be a non-negative integer, got `{}`", fields[i])))
    };
    let number = |i: usize, name: &str| -> Result<f64, FlowFieldError> {
        match fields[i].parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => Err(parse_err(line_no, &format!("`{name}` must be a finite number, got `{}`", fields[i]))),
        }
    };
    let std = Vector2::new(number(4, "std_x")?, number(5, "std_y")?);
    if std.x < 0.0 || std.y < 0.0 {
        return Err(parse_err(line_no, "standard deviations must be >= 0"));
    }
    let count = fields[6]
        .parse::<u64>()
        .map_err(|_| parse_err(line_no, &format!("`count` must be a non-negative integer, got `{}`", fields[6])))?;
    let cell = FlowCell { mean: Vector2::new(number(2, "mean_x")?, number(3, "mean_y")?), std, count };
    Ok((index(0, "ix")?, index(1, "iy")?, cell))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_through_text_and_file() {
        let mut g = FlowGrid::new(3, 2, GridExtent::centred_square(0.6)).unwrap();
        *g.cell_mut(2, 1).unwrap() = FlowCell { mean: Vector2::new(0.125, -0.5), std: Vector2::new(0.01, 0.02), count: 9 };
        let back = FlowGrid::from_csv_str(&g.to_csv_string()).unwrap();
        assert_eq!(back, g);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("field.csv");
        g.write_csv(&path).unwrap();
        assert_eq!(FlowGrid::read_csv(&path).unwrap(), g);
    }

    #[test]
    fn missing_rows_are_empty_cells() {
        let text = "# flotilla_flow_field v1 nx=2 ny=2 x_min=0 x_max=1 y_min=0 y_max=1\n\
                    ix,iy,mean_x,mean_y,std_x,std_y,count\n1,0,0.5,0,0.1,0.1,4\n";
        let g = FlowGrid::from_csv_str(text).unwrap();
        assert_eq!(g.cell(1, 0).unwrap().count, 4);
        assert_eq!(g.cell(0, 1).unwrap(), &FlowCell::default());
    }

    #[test]
    fn errors_name_the_line_and_the_problem() {
        let head = "# flotilla_flow_field v1 nx=2 ny=2 x_min=0 x_max=1 y_min=0 y_max=1\n\
                    ix,iy,mean_x,mean_y,std_x,std_y,count\n";
        let cases = [
            (format!("{head}5,0,0,0,0,0,1\n"), "line 3", "outside"),
            (format!("{head}0,0,nan,0,0,0,1\n"), "line 3", "mean_x"),
            (format!("{head}0,0,0,0,-1,0,1\n"), "line 3", ">= 0"),
            (format!("{head}0,0,0,0,0,0,1\n0,0,0,0,0,0,1\n"), "line 4", "twice"),
            ("ix,iy\n".to_owned(), "line 1", "flotilla_flow_field"),
            ("# flotilla_flow_field v1 nx=2 ny=0 x_min=0 x_max=1 y_min=0 y_max=1\n".to_owned(), "line 1", "grid size"),
        ];
        for (text, line, what) in cases {
            let msg = FlowGrid::from_csv_str(&text).unwrap_err().to_string();
            assert!(msg.contains(line) && msg.contains(what), "{msg}");
        }
    }

    #[test]
    fn missing_file_names_the_path() {
        let msg = FlowGrid::read_csv(Path::new("/nonexistent/field.csv")).unwrap_err().to_string();
        assert!(msg.contains("/nonexistent/field.csv"), "{msg}");
    }

    /// Issue 21 item 3: a header of 1000000 x 1000000 cells aborted the process on the
    /// allocation; it is now a line-1 error naming the cap.
    #[test]
    fn item3_huge_header_is_refused_before_allocating() {
        let text = "# flotilla_flow_field v1 nx=1000000 ny=1000000 x_min=0 x_max=1 y_min=0 y_max=1\n";
        let msg = FlowGrid::from_csv_str(text).unwrap_err().to_string();
        assert!(msg.contains("line 1") && msg.contains("at most"), "{msg}");
    }
}
