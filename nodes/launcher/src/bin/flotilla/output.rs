//! Routing each process's stdout and stderr, line by line, prefixed with `[label]` like
//! `ros2 launch`, to the screen and/or log files according to its `output` mode.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use flotilla_launch::OutputMode;

/// Log files of one launch: the shared `launch.log` and the processes' own logs.
pub struct LogDir {
    dir: PathBuf,
    launch_log: Arc<Mutex<File>>,
}

impl LogDir {
    /// Creates `dir` and its `launch.log`.
    pub fn create(dir: PathBuf) -> std::io::Result<Self> {
        std::fs::create_dir_all(&dir)?;
        let launch_log = Arc::new(Mutex::new(append(&dir.join("launch.log"))?));
        Ok(Self { dir, launch_log })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.dir
    }
}

fn append(path: &Path) -> std::io::Result<File> {
    OpenOptions::new().create(true).append(true).open(path)
}

/// Which terminal stream a line goes to.
#[derive(Clone, Copy)]
enum Screen {
    Stdout,
    Stderr,
}

/// Where the lines of one stream of one process go.
#[derive(Clone)]
pub struct Route {
    screen: Option<Screen>,
    files: Vec<Arc<Mutex<File>>>,
}

/// The routes of a process's stdout and stderr for `mode`.
pub fn routes(mode: OutputMode, label: &str, logs: Option<&LogDir>) -> std::io::Result<(Route, Route)> {
    let shared = |screen: Option<Screen>| Route { screen, files: logs.map(|l| vec![l.launch_log.clone()]).unwrap_or_default() };
    let screen_only = |screen: Screen| Route { screen: Some(screen), files: Vec::new() };
    Ok(match (mode, logs) {
        (OutputMode::Screen, _) | (_, None) => (screen_only(Screen::Stdout), screen_only(Screen::Stderr)),
        (OutputMode::Log, Some(_)) => (shared(None), shared(Some(Screen::Stderr))),
        (OutputMode::Both, Some(_)) => (shared(Some(Screen::Stdout)), shared(Some(Screen::Stderr))),
        (OutputMode::OwnLog, Some(logs)) => {
            let own = |stream: &str| -> std::io::Result<Route> {
                let file = append(&logs.dir.join(format!("{}-{stream}.log", file_safe(label))))?;
                Ok(Route { screen: None, files: vec![Arc::new(Mutex::new(file))] })
            };
            (own("stdout")?, own("stderr")?)
        }
    })
}

fn file_safe(label: &str) -> String {
    label.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') { c } else { '_' }).collect()
}

/// Copies `pipe` to `route` line by line on a new thread; the thread ends at end of file.
pub fn pump(pipe: impl Read + Send + 'static, label: String, route: Route) -> std::io::Result<JoinHandle<()>> {
    std::thread::Builder::new().name(format!("output {label}")).spawn(move || {
        let mut reader = BufReader::new(pipe);
        let mut raw = Vec::new();
        loop {
            raw.clear();
            match reader.read_until(b'\n', &mut raw) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    let text = String::from_utf8_lossy(&raw);
                    let line = format!("[{label}] {}\n", text.trim_end_matches(['\n', '\r']));
                    route.write(&line);
                }
            }
        }
    })
}

impl Route {
    fn write(&self, line: &str) {
        // A closed terminal or a full disk must not stop the launch: output is best effort.
        match self.screen {
            Some(Screen::Stdout) => {
                let _ = std::io::stdout().lock().write_all(line.as_bytes());
            }
            Some(Screen::Stderr) => {
                let _ = std::io::stderr().lock().write_all(line.as_bytes());
            }
            None => {}
        }
        for file in &self.files {
            if let Ok(mut f) = file.lock() {
                let _ = f.write_all(line.as_bytes());
            }
        }
    }
}
