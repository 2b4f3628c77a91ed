//! Robots from a small text file: one module per line as its cell (`x y z`, or `x y` on
//! the square lattice), `#` comments, and optional settings before or between them:
//!
//! ```text
//! # an L of three cubes with worn pumps
//! lattice cube            # cube (default) or square
//! module_side_cm 2        # default: the volume of the 8 cm cube
//! thrust_mN 0.4           # per pump; default: 6.4 mN per 64 cm^2 of face
//! direction_error 0.5     # e_max, relative to the unit normal
//! thruster_failure 0.1    # probability
//! sensor_failure 0        # probability
//! 0 0 0
//! 1 0 0
//! 0 1 0
//! ```
//!
//! The same in YAML is read too (`key: value`, the cells under `modules:` or `cells:` as
//! `- [x, y, z]` items or one flow list `modules: [[0, 0, 0], [1, 0, 0]]`):
//!
//! ```yaml
//! lattice: cube
//! thruster_failure: 0.1
//! modules:
//!   - [0, 0, 0]
//!   - [1, 0, 0]
//!   - [0, 1, 0]
//! ```
//!
//! Every error names the file and the line: a disconnected module, two modules in one
//! cell, a robot without modules, a probability outside [0, 1], an unknown key.

use std::path::{Path, PathBuf};

use super::lattice::{Cell, Lattice, Morphology, MorphologyError};
use super::robot::{MhpError, MhpFaults, MhpParams};

/// A robot read from a file.
#[derive(Clone, Debug, PartialEq)]
pub struct RobotFile {
    /// The shape.
    pub morphology: Morphology,
    /// Module side, m, if the file sets it.
    pub module_side: Option<f64>,
    /// Force of one pump, N, if the file sets it.
    pub thrust: Option<f64>,
    /// Faults (zero unless set).
    pub faults: MhpFaults,
}

impl RobotFile {
    /// The robot's physical parameters: modules of the file's side (default: the robot has
    /// the volume of the 8 cm cube) with the paper's thrust per face area, or the file's
    /// thrust.
    pub fn params(&self) -> MhpParams {
        let mut params = match self.module_side {
            Some(side) => MhpParams::with_module_side(side),
            None => MhpParams::equal_volume(self.morphology.len()),
        };
        if let Some(thrust) = self.thrust {
            params.thrust = thrust;
        }
        params
    }
}

/// A file that is not a robot: `path:line: message` (no line when it concerns the file).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{}{}: {message}", path.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct RobotFileError {
    /// The file.
    pub path: PathBuf,
    /// 1-based line, when one line is at fault.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

/// What a line (comment removed, trimmed, not empty) holds, in the text or the YAML form.
enum Line<'a> {
    /// A setting: `key value` or `key: value`.
    Setting(&'a str, &'a str),
    /// Module cells, each as whitespace-separated numbers (none for `modules:` itself).
    Modules(Vec<String>),
}

/// Reads one line; `None` when it is neither a setting nor cells.
fn read_line(content: &str) -> Option<Line<'_>> {
    let cells = |flow: &str| -> Vec<String> {
        // `[[0, 0, 0], [1, 0, 0]]`, `[0, 0, 0]` or `0 0 0`: the innermost bracket groups.
        let groups: Vec<&str> = flow.split(']').filter_map(|g| g.rsplit('[').next()).map(str::trim).filter(|g| !g.is_empty()).collect();
        let groups = if groups.is_empty() { vec![flow] } else { groups };
        groups.iter().map(|g| g.replace(',', " ").split_whitespace().collect::<Vec<_>>().join(" ")).filter(|g| !g.is_empty()).collect()
    };
    // A YAML item is `-` then a space or a bracket; `-1 0 0` is a module at x = -1.
    if let Some(item) =
        content.strip_prefix('-').filter(|rest| rest.is_empty() || rest.starts_with(|c: char| c.is_whitespace() || c == '['))
    {
        return Some(Line::Modules(cells(item.trim())));
    }
    // A flow list's continuation line (`modules: [[0, 0, 0],` then `[1, 0, 0]]`).
    if content.starts_with('[') {
        return Some(Line::Modules(cells(content)));
    }
    if let Some((key, value)) = content.split_once(':') {
        let (key, value) = (key.trim(), value.trim().trim_matches(|c| c == '"' || c == '\''));
        return Some(match key {
            "modules" | "cells" => Line::Modules(if value.is_empty() { Vec::new() } else { cells(value) }),
            _ => Line::Setting(key, value),
        });
    }
    let words: Vec<&str> = content.split_whitespace().collect();
    match words[..] {
        [first, ..] if first.parse::<f64>().is_ok() => Some(Line::Modules(vec![content.to_owned()])),
        [key, value] => Some(Line::Setting(key, value)),
        _ => None,
    }
}

/// Reads the robot file at `path`.
pub fn load(path: &Path) -> Result<RobotFile, RobotFileError> {
    let bytes = std::fs::read(path).map_err(|e| RobotFileError { path: path.to_owned(), line: None, message: e.to_string() })?;
    // Not text (a binary file, or one saved in a legacy encoding): name the line and column.
    let text = String::from_utf8(bytes).map_err(|e| {
        let good = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = good.iter().filter(|b| **b == b'\n').count() + 1;
        let column = good.len() - good.iter().rposition(|b| *b == b'\n').map_or(0, |p| p + 1) + 1;
        let byte = e.as_bytes()[good.len()];
        RobotFileError {
            path: path.to_owned(),
            line: Some(line),
            message: format!("byte 0x{byte:02X} at column {column} is not UTF-8 text: save the robot file as UTF-8 (or ASCII)"),
        }
    })?;
    parse(&text, path)
}

/// Parses robot file text; `path` names it in errors.
pub fn parse(text: &str, path: &Path) -> Result<RobotFile, RobotFileError> {
    let err = |line: Option<usize>, message: String| RobotFileError { path: path.to_owned(), line, message };
    let mut lattice = Lattice::Cube;
    let mut lattice_line = None;
    let mut cells: Vec<Cell> = Vec::new();
    let mut lines: Vec<usize> = Vec::new();
    let (mut module_side, mut thrust, mut faults) = (None, None, MhpFaults::default());
    let (mut side_line, mut thrust_line) = (None, None);
    let mut settings: Vec<(String, usize)> = Vec::new();
    // A byte-order mark (Windows editors write one) is not part of the first line.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() || content == "---" {
            continue;
        }
        let (key, value) = match read_line(content) {
            Some(Line::Setting(key, value)) => (key, value),
            Some(Line::Modules(modules)) => {
                for module in modules {
                    let numbers: Result<Vec<i32>, _> = module.split_whitespace().map(|w| w.parse::<i32>()).collect();
                    let bad = || err(Some(line), format!("a module is 2 or 3 whole numbers, got `{}`", module.trim()));
                    let cell = match numbers.map_err(|_| bad())?[..] {
                        [x, y] => [x, y, 0],
                        [x, y, z] => [x, y, z],
                        _ => return Err(bad()),
                    };
                    cells.push(cell);
                    lines.push(line);
                }
                continue;
            }
            None => return Err(err(Some(line), format!("expected `key value` or a module's cell, got `{content}`"))),
        };
        // A setting given twice was silently the last one.
        if let Some((_, first)) = settings.iter().find(|(k, _)| *k == key) {
            return Err(err(Some(line), format!("{key} is given twice (first on line {first}): give it once")));
        }
        settings.push((key.to_owned(), line));
        if key == "lattice" {
            lattice = match value {
                "cube" => Lattice::Cube,
                "square" => Lattice::Square,
                _ => return Err(err(Some(line), format!("lattice `{value}`: expected cube or square"))),
            };
            if !cells.is_empty() {
                return Err(err(Some(line), "set the lattice before the first module".into()));
            }
            lattice_line = Some(line);
            continue;
        }
        let number: f64 = value.parse().map_err(|_| err(Some(line), format!("{key}: `{value}` is not a number")))?;
        let probability = |v: f64| {
            if (0.0..=1.0).contains(&v) {
                Ok(v)
            } else {
                Err(err(Some(line), format!("{key} = {v}: a probability must be in [0, 1]")))
            }
        };
        let positive = |v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(v)
            } else {
                Err(err(Some(line), format!("{key} = {v}: must be positive")))
            }
        };
        match key {
            "module_side_cm" => (module_side, side_line) = (Some(positive(number)? / 100.0), Some(line)),
            "thrust_mN" => (thrust, thrust_line) = (Some(positive(number)? / 1000.0), Some(line)),
            "direction_error" if number.is_finite() && number >= 0.0 => faults.direction_error = number,
            "direction_error" => return Err(err(Some(line), format!("direction_error = {number}: must be >= 0"))),
            "thruster_failure" => faults.thruster_failure = probability(number)?,
            "sensor_failure" => faults.sensor_failure = probability(number)?,
            _ => {
                return Err(err(
                    Some(line),
                    format!(
                    "unknown key `{key}` (known: lattice, module_side_cm, thrust_mN, direction_error, thruster_failure, sensor_failure)"
                ),
                ))
            }
        }
    }
    let morphology = Morphology::new(lattice, cells).map_err(|e| match e {
        MorphologyError::Empty => err(None, "the robot has no modules (give one cell per line, e.g. `0 0 0`)".into()),
        MorphologyError::Overlap { index, first, cell } => {
            err(Some(lines[index]), format!("module at {cell:?} overlaps the module of line {}", lines[first]))
        }
        MorphologyError::Disconnected { index, cell } => err(
            Some(lines[index]),
            format!("module at {cell:?} is not connected to the module of line {} (modules join through faces)", lines[0]),
        ),
        MorphologyError::OffPlane { index, cell } => err(
            Some(lines[index]),
            format!(
                "module at {cell:?} is off the plane z = 0 of the square lattice{}",
                lattice_line.map(|l| format!(" (set on line {l})")).unwrap_or_default()
            ),
        ),
        e @ MorphologyError::TooLarge { .. } => err(None, e.to_string()),
    })?;
    let file = RobotFile { morphology, module_side, thrust, faults };
    // A side or thrust that is positive can still give a module of 0 kg or infinite mass,
    // or a default thrust of 0 N: refused here, at its line, not in the first trial.
    if let Err(e) = file.params().validate() {
        let line = match e {
            MhpError::Parameter { name: "thrust", .. } => thrust_line.or(side_line),
            _ => side_line,
        };
        let hint = if side_line.is_some() { "module_side_cm" } else { "the module count" };
        return Err(err(line, format!("{e} (from {hint}{})", if thrust_line.is_some() { " and thrust_mN" } else { "" })));
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(text: &str) -> String {
        parse(text, Path::new("robot.txt")).unwrap_err().to_string()
    }

    #[test]
    fn a_good_file() {
        let text = "# L\nlattice square\nmodule_side_cm 8\nthrust_mN 6.4\n0 0\n1 0 # right\n0 1\nthruster_failure 0.25\n";
        let r = parse(text, Path::new("l.txt")).unwrap();
        assert_eq!(r.morphology.cells(), &[[0, 0, 0], [1, 0, 0], [0, 1, 0]]);
        assert_eq!(r.morphology.lattice(), Lattice::Square);
        assert_eq!((r.module_side, r.thrust), (Some(0.08), Some(0.0064)));
        assert_eq!(r.faults.thruster_failure, 0.25);
    }

    /// A side whose module weighs 0 kg (or whose default thrust is 0 N) or infinitely
    /// much was accepted and failed in the first trial naming `thrust`; a UTF-8 byte-order
    /// mark made the first module an unknown key.
    #[test]
    fn sides_that_give_no_mass_or_thrust_are_refused_at_their_line_and_a_bom_is_skipped() {
        let tiny = error("0 0 0\nmodule_side_cm 1e-300\n");
        assert!(tiny.starts_with("robot.txt:2: parameter thrust = 0: must be positive and finite (from module_side_cm)"), "{tiny}");
        let tiny_with_thrust = error("module_side_cm 1e-150\nthrust_mN 1\n0 0 0\n");
        assert!(tiny_with_thrust.starts_with("robot.txt:1: a module's mass 0 kg"), "{tiny_with_thrust}");
        let huge = error("module_side_cm 1e300\n0 0 0\n");
        assert!(huge.starts_with("robot.txt:1: parameter thrust = inf"), "{huge}");
        let bom = parse("\u{feff}0 0 0\r\n1 0 0\r\n", Path::new("bom.txt")).expect("a byte-order mark and CRLF are read");
        assert_eq!(bom.morphology.cells(), &[[0, 0, 0], [1, 0, 0]]);
    }

    /// The issue's "text/YAML format": the YAML form was refused (`lattice:: `cube` is not
    /// a number`).
    #[test]
    fn the_yaml_form_reads_as_the_text_form() {
        let text = "lattice square\nthruster_failure 0.25\n0 0\n1 0\n0 1\n";
        let reference = parse(text, Path::new("l.txt")).unwrap();
        for yaml in [
            "---\nlattice: square\nthruster_failure: 0.25\nmodules:\n  - [0, 0]\n  - [1, 0]   # right\n  - [0, 1]\n",
            "lattice: \"square\"\nthruster_failure: 0.25\ncells: [[0, 0], [1, 0], [0, 1]]\n",
            "lattice: square\nmodules:\n- [0,0]\n- [1,0]\n- [0,1]\nthruster_failure: 0.25\n",
        ] {
            assert_eq!(parse(yaml, Path::new("l.yaml")), Ok(reference.clone()), "{yaml:?}");
        }
        let e = parse("modules:\n  - [0, 0, 0]\n  - [2, 0, 0]\n", Path::new("r.yaml")).unwrap_err().to_string();
        assert_eq!(e, "r.yaml:3: module at [2, 0, 0] is not connected to the module of line 2 (modules join through faces)");
        let e = parse("modules:\n  - [0, 0, 0.5]\n", Path::new("r.yaml")).unwrap_err().to_string();
        assert_eq!(e, "r.yaml:2: a module is 2 or 3 whole numbers, got `0 0 0.5`");
        let e = parse("colour: red\nmodules: [[0, 0, 0]]\n", Path::new("r.yaml")).unwrap_err().to_string();
        assert!(e.starts_with("r.yaml:1: colour: `red` is not a number"), "{e}");
    }

    /// Regression: a text line starting with a negative coordinate was read as a YAML item
    /// without its minus sign (`-1 0 0` became a module at x = 1: a valid file was refused
    /// as overlapping, another silently mirrored).
    #[test]
    fn negative_coordinates_are_not_yaml_items() {
        let r = parse("-1 0 0\n0 0 0\n1 0 0\n", Path::new("r.txt")).unwrap();
        assert_eq!(r.morphology.cells(), &[[-1, 0, 0], [0, 0, 0], [1, 0, 0]]);
        let r = parse("-5 -5 -5\n-4 -5 -5\n-5 -4 -5\n", Path::new("r.txt")).unwrap();
        assert_eq!(r.morphology.cells(), &[[-5, -5, -5], [-4, -5, -5], [-5, -4, -5]]);
        let yaml = parse("modules:\n- [-1, 0, 0]\n-\t[0, 0, 0]\n-[1, 0, 0]\n", Path::new("r.yaml")).unwrap();
        assert_eq!(yaml.morphology.cells(), &[[-1, 0, 0], [0, 0, 0], [1, 0, 0]]);
    }

    /// Regression: a file with a byte that is not UTF-8 (Latin-1 saved, or a binary file)
    /// was refused as "stream did not contain valid UTF-8", without the line.
    #[test]
    fn bytes_that_are_not_utf8_name_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("latin1.txt");
        std::fs::write(&path, b"0 0 0\n1 0 0 # caf\xe9\n").unwrap();
        let e = load(&path).unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(
            e.to_string().ends_with("latin1.txt:2: byte 0xE9 at column 12 is not UTF-8 text: save the robot file as UTF-8 (or ASCII)"),
            "{e}"
        );
        std::fs::write(&path, b"\xff\xfe0\x00").unwrap();
        assert!(load(&path).unwrap_err().to_string().contains(":1: byte 0xFF at column 1 is not UTF-8"));
    }

    /// Regression: a setting given twice (`thrust_mN 0.4` then `thrust_mN 0.5`) was
    /// silently the last one.
    #[test]
    fn a_setting_given_twice_is_refused_at_its_second_line() {
        assert_eq!(error("thrust_mN 0.4\n0 0 0\nthrust_mN 0.5\n"), "robot.txt:3: thrust_mN is given twice (first on line 1): give it once");
        assert!(error("lattice: cube\nlattice: cube\nmodules: [[0, 0, 0]]\n")
            .starts_with("robot.txt:2: lattice is given twice (first on line 1)"));
    }

    /// Regression: a YAML flow list over several lines (`modules: [[0, 0, 0],` then
    /// `[1, 0, 0]]`) was refused at its second line ("expected `key value` or a module's
    /// cell").
    #[test]
    fn a_flow_list_over_several_lines_is_read() {
        let r = parse("modules: [[0, 0, 0],\n          [1, 0, 0],\n          [0, 1, 0]]\n", Path::new("r.yaml")).unwrap();
        assert_eq!(r.morphology.cells(), &[[0, 0, 0], [1, 0, 0], [0, 1, 0]]);
        let e = parse("modules: [[0, 0, 0],\n  [2, 0, 0]]\n", Path::new("r.yaml")).unwrap_err().to_string();
        assert_eq!(e, "r.yaml:2: module at [2, 0, 0] is not connected to the module of line 1 (modules join through faces)");
    }

    #[test]
    fn bad_files_name_the_line() {
        assert_eq!(
            error("0 0 0\n1 0 0\n\n3 0 0\n"),
            "robot.txt:4: module at [3, 0, 0] is not connected to the module of line 1 (modules join through faces)"
        );
        assert_eq!(error("0 0 0\n1 0 0\n0 0 0\n"), "robot.txt:3: module at [0, 0, 0] overlaps the module of line 1");
        assert!(error("# nothing\nlattice cube\n").starts_with("robot.txt: the robot has no modules"));
        assert_eq!(error("0 0 0\nsensor_failure 1.2\n"), "robot.txt:2: sensor_failure = 1.2: a probability must be in [0, 1]");
        assert_eq!(error("thruster_failure -0.1\n0 0 0\n"), "robot.txt:1: thruster_failure = -0.1: a probability must be in [0, 1]");
        assert!(error("0 0 0\n0 0 x\n").starts_with("robot.txt:2: a module is 2 or 3 whole numbers"));
        assert!(error("0 0 0\ncolour red\n").starts_with("robot.txt:2: colour: `red` is not a number"));
        assert!(error("0 0 0\ncolour 1\n").starts_with("robot.txt:2: unknown key `colour`"));
        assert!(error("lattice square\n0 0 0\n0 0 1\n")
            .contains(":3: module at [0, 0, 1] is off the plane z = 0 of the square lattice (set on line 1)"));
        assert!(error("0 0 0\nlattice square\n").contains(":2: set the lattice before"));
        assert!(error("0.5 0 0\n").starts_with("robot.txt:1: a module is 2 or 3 whole numbers, got `0.5 0 0`"));
        let missing = load(Path::new("/nonexistent/robot.txt")).unwrap_err();
        assert!(missing.to_string().starts_with("/nonexistent/robot.txt: "), "{missing}");
    }
}
