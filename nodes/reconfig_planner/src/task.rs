//! Task files: a start layout, a goal layout and a list of robots, in YAML.
//!
//! ```yaml
//! name: task 1
//! description: one block moves one column over
//! start: |          # 2-D: one picture, rows top first (see lattice pictures)
//!   ...
//!   ##.
//! goal: |           # 3-D: a list of pictures, one per y layer
//!   ...
//!   #.#
//! robots:           # [x, z] in 2-D, [x, y, z] in 3-D; the benchmark uses the first k
//!   - [0, 0]
//! ```
//!
//! Robots go in the `robots` list only (not in the start picture), so a task can be
//! planned with any number of them. A goal picture may mark robot cells (`R` or digits):
//! then a plan must also bring robots there.

use crate::lattice::{Cell, Lattice, LatticeError};
use crate::planner::PlanRequest;
use serde::Deserialize;
use std::path::Path;
use thiserror::Error;

/// A picture in a task file: one string (2-D) or one per `y` layer (3-D).
#[derive(Debug, Clone)]
enum Picture {
    Planar(String),
    Layers(Vec<String>),
}

impl TryFrom<serde_yaml::Value> for Picture {
    type Error = String;

    /// Anything else is named as written (an untagged enum said only "data did not match
    /// any variant of untagged enum Picture", without the field).
    fn try_from(value: serde_yaml::Value) -> Result<Self, String> {
        match value {
            serde_yaml::Value::String(text) => Ok(Picture::Planar(text)),
            serde_yaml::Value::Sequence(items) if items.iter().all(serde_yaml::Value::is_string) => {
                Ok(Picture::Layers(items.into_iter().filter_map(|v| v.as_str().map(str::to_owned)).collect()))
            }
            other => Err(format!(
                "expected a picture (a block string of rows, or a list of such strings, one per layer), got {}",
                serde_yaml::to_string(&other).map_or_else(|_| format!("{other:?}"), |t| t.trim().to_owned())
            )),
        }
    }
}

impl Picture {
    fn lattice(&self) -> Result<Lattice, LatticeError> {
        match self {
            Picture::Planar(text) => Lattice::from_picture(text),
            Picture::Layers(layers) => Lattice::from_layers(layers),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TaskFile {
    name: String,
    #[serde(default)]
    description: String,
    #[serde(deserialize_with = "start_picture")]
    start: Picture,
    #[serde(deserialize_with = "goal_picture")]
    goal: Picture,
    robots: Vec<Vec<usize>>,
}

/// The picture of field `field`, named in its error.
fn picture<'de, D: serde::Deserializer<'de>>(deserializer: D, field: &str) -> Result<Picture, D::Error> {
    let value = <serde_yaml::Value as Deserialize>::deserialize(deserializer)?;
    Picture::try_from(value).map_err(|e| serde::de::Error::custom(format!("`{field}`: {e}")))
}

fn start_picture<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Picture, D::Error> {
    picture(deserializer, "start")
}

fn goal_picture<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Picture, D::Error> {
    picture(deserializer, "goal")
}

/// What is wrong with a task file; `origin` is its path (or the name given).
#[derive(Debug, Error)]
pub enum TaskError {
    /// The file cannot be read.
    #[error("{origin}: cannot read: {source}")]
    Io {
        /// The path.
        origin: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Not valid YAML, or not the task layout.
    #[error("{origin}: {source}")]
    Yaml {
        /// The path.
        origin: String,
        /// The parse error (with line and column).
        source: serde_yaml::Error,
    },
    /// A picture that is not a valid lattice.
    #[error("{origin}: `{field}`: {source}")]
    Lattice {
        /// The path.
        origin: String,
        /// `start` or `goal`.
        field: &'static str,
        /// What is wrong.
        source: LatticeError,
    },
    /// The start picture places robots.
    #[error("{origin}: `start` shows robots; list them under `robots` instead")]
    RobotsInStartPicture {
        /// The path.
        origin: String,
    },
    /// A robot entry that is not `[x, z]` or `[x, y, z]`.
    #[error("{origin}: robots[{index}] has {len} coordinates; use [x, z] (2-D) or [x, y, z]")]
    RobotCoordinates {
        /// The path.
        origin: String,
        /// Entry index.
        index: usize,
        /// Coordinates given.
        len: usize,
    },
    /// A robot given as `[x, z]` in a task of several `y` layers: which layer is meant?
    #[error("{origin}: robots[{index}] is [x, z] but the task has {layers} y layers; use [x, y, z]")]
    RobotLayer {
        /// The path.
        origin: String,
        /// Entry index.
        index: usize,
        /// Layers of the start.
        layers: usize,
    },
    /// A robot that cannot be placed.
    #[error("{origin}: robots[{index}]: {source}")]
    Robot {
        /// The path.
        origin: String,
        /// Entry index.
        index: usize,
        /// Why.
        source: LatticeError,
    },
    /// More robots asked for than the file lists.
    #[error("{origin}: {requested} robots requested but the file lists {available}")]
    TooFewRobots {
        /// The path.
        origin: String,
        /// Asked for.
        requested: usize,
        /// Listed.
        available: usize,
    },
}

/// A planning task read from a file.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    /// Short name.
    pub name: String,
    /// What the task shows.
    pub description: String,
    /// Start blocks (no robots).
    pub start: Lattice,
    /// Goal layout.
    pub goal: Lattice,
    /// Robot cells, in the order they are added.
    pub robots: Vec<Cell>,
    origin: String,
}

impl Task {
    /// Reads a task file.
    pub fn load(path: &Path) -> Result<Task, TaskError> {
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| TaskError::Io { origin: origin.clone(), source })?;
        Self::from_yaml(&text, &origin)
    }

    /// Parses task YAML; `origin` names it in errors.
    pub fn from_yaml(text: &str, origin: &str) -> Result<Task, TaskError> {
        let origin = origin.to_string();
        let file: TaskFile = serde_yaml::from_str(text).map_err(|source| TaskError::Yaml { origin: origin.clone(), source })?;
        let lattice = |field: &'static str, picture: &Picture| {
            picture.lattice().map_err(|source| TaskError::Lattice { origin: origin.clone(), field, source })
        };
        let start = lattice("start", &file.start)?;
        let goal = lattice("goal", &file.goal)?;
        if !start.robots().is_empty() {
            return Err(TaskError::RobotsInStartPicture { origin });
        }
        let mut robots = Vec::with_capacity(file.robots.len());
        let mut probe = start.clone();
        for (index, coords) in file.robots.iter().enumerate() {
            let cell = match coords[..] {
                // Was placed in layer 0 without a word.
                [_, _] if start.dims().y > 1 => {
                    return Err(TaskError::RobotLayer { origin, index, layers: start.dims().y });
                }
                [x, z] => Cell::planar(x, z),
                [x, y, z] => Cell::new(x, y, z),
                _ => return Err(TaskError::RobotCoordinates { origin, index, len: coords.len() }),
            };
            probe.add_robot(cell).map_err(|source| TaskError::Robot { origin: origin.clone(), index, source })?;
            robots.push(cell);
        }
        Ok(Task { name: file.name, description: file.description, start, goal, robots, origin })
    }

    /// The start state with the first `robots` robots of the list.
    pub fn start_with(&self, robots: usize) -> Result<Lattice, TaskError> {
        if robots > self.robots.len() {
            return Err(TaskError::TooFewRobots { origin: self.origin.clone(), requested: robots, available: self.robots.len() });
        }
        let mut start = self.start.clone();
        for (index, &cell) in self.robots[..robots].iter().enumerate() {
            start.add_robot(cell).map_err(|source| TaskError::Robot { origin: self.origin.clone(), index, source })?;
        }
        Ok(start)
    }

    /// A request (default heuristic, costs, budget) with the first `robots` robots.
    pub fn request(&self, robots: usize) -> Result<PlanRequest, TaskError> {
        Ok(PlanRequest::new(self.start_with(robots)?, self.goal.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TASK: &str = "name: t\nstart: |\n  ...\n  ##.\ngoal: |\n  ...\n  #.#\nrobots:\n  - [0, 0]\n  - [1, 0]\n";

    #[test]
    fn reads_a_planar_task() {
        let task = Task::from_yaml(TASK, "t.yaml").unwrap();
        assert_eq!(task.robots, vec![Cell::planar(0, 0), Cell::planar(1, 0)]);
        assert_eq!(task.start_with(1).unwrap().robots(), &[Cell::planar(0, 0)]);
        let err = task.start_with(3).unwrap_err();
        assert!(err.to_string().contains("3 robots requested but the file lists 2"), "{err}");
    }

    #[test]
    fn reads_layers_in_3d() {
        let yaml = "name: t\nstart: [\"#.\\n\", \"..\\n\"]\ngoal: [\".#\\n\", \"..\\n\"]\nrobots: [[0, 0, 0]]\n";
        let task = Task::from_yaml(yaml, "t3").unwrap();
        assert_eq!(task.start.dims(), crate::Dims::new(2, 2, 1));
        assert_eq!(task.robots, vec![Cell::new(0, 0, 0)]);
    }

    /// A 3-D task's robot written `[x, z]` was put in layer 0 silently (the planner then
    /// searched from a start the author did not mean).
    #[test]
    fn a_planar_robot_in_a_layered_task_is_refused() {
        let yaml = "name: t\nstart: [\"#.\\n\", \"#.\\n\"]\ngoal: [\".#\\n\", \".#\\n\"]\nrobots: [[0, 0, 0], [0, 0]]\n";
        let err = Task::from_yaml(yaml, "t3.yaml").unwrap_err();
        assert_eq!(err.to_string(), "t3.yaml: robots[1] is [x, z] but the task has 2 y layers; use [x, y, z]");
        // One layer: [x, z] is unambiguous.
        let yaml = "name: t\nstart: [\"#.\\n\"]\ngoal: [\".#\\n\"]\nrobots: [[0, 0]]\n";
        assert_eq!(Task::from_yaml(yaml, "t1").unwrap().robots, vec![Cell::planar(0, 0)]);
    }

    #[test]
    fn errors_name_the_file_and_the_place() {
        let bad_robot = TASK.replace("[1, 0]", "[2, 0]");
        let err = Task::from_yaml(&bad_robot, "t.yaml").unwrap_err();
        assert_eq!(err.to_string(), "t.yaml: robots[1]: robot 1 at (2, 0, 0) is not inside a block");
        let err = Task::from_yaml(&TASK.replace("[1, 0]", "[1]"), "t.yaml").unwrap_err();
        assert!(err.to_string().contains("robots[1] has 1 coordinates"), "{err}");
        let err = Task::from_yaml(&TASK.replace("##.", "#x."), "t.yaml").unwrap_err();
        assert!(err.to_string().starts_with("t.yaml: `start`: picture line 2, column 2"), "{err}");
        let err = Task::from_yaml(&TASK.replace("##.", "#0."), "t.yaml").unwrap_err();
        assert!(matches!(err, TaskError::RobotsInStartPicture { .. }));
        let err = Task::from_yaml("name: [", "t.yaml").unwrap_err();
        assert!(matches!(err, TaskError::Yaml { .. }));
        let err = Task::load(Path::new("/nonexistent/task.yaml")).unwrap_err();
        assert!(err.to_string().starts_with("/nonexistent/task.yaml: cannot read"), "{err}");
    }
}
