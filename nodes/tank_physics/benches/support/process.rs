//! CPU time and memory of another process (a node the bench spawned), from `/proc`.

use anyhow::Context as _;
use std::time::Duration;

/// CPU time (user + system) of process `pid` so far.
pub fn process_cpu(pid: u32) -> anyhow::Result<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).with_context(|| format!("reading /proc/{pid}/stat"))?;
    // Fields after the parenthesised command name: state is the 3rd field, utime the 14th.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).context("malformed /proc stat")?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields.get(11).context("utime")?.parse::<u64>()? + fields.get(12).context("stime")?.parse::<u64>()?;
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Ok(Duration::from_secs_f64(ticks as f64 / hz as f64))
}

/// `VmRSS`, `VmHWM` (MiB) and `Threads` of process `pid`.
pub fn process_memory(pid: u32) -> anyhow::Result<(f64, f64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).with_context(|| format!("reading /proc/{pid}/status"))?;
    let field = |key: &str| -> anyhow::Result<u64> {
        let line = status.lines().find(|l| l.starts_with(key)).with_context(|| format!("/proc/{pid}/status: no {key}"))?;
        line[key.len()..].split_whitespace().next().context(key.to_owned())?.parse::<u64>().with_context(|| key.to_owned())
    };
    Ok((field("VmRSS:")? as f64 / 1024.0, field("VmHWM:")? as f64 / 1024.0, field("Threads:")?))
}

/// A node the bench started on a parameter file, its log kept in a file (a pipe nobody
/// reads could fill and block the node).
pub struct NodeProcess {
    child: std::process::Child,
    log: std::fs::File,
    _params: tempfile::NamedTempFile,
}

impl NodeProcess {
    /// Starts `exe --ros-args --params-file <params written to a file>`.
    pub fn spawn(exe: &str, params: &str) -> anyhow::Result<Self> {
        use std::io::Write as _;
        let mut file = tempfile::NamedTempFile::new().context("temp parameter file")?;
        file.write_all(params.as_bytes()).context("writing the parameter file")?;
        let log = tempfile::tempfile().context("temp log file")?;
        let child = std::process::Command::new(exe)
            .args(["--ros-args", "--params-file"])
            .arg(file.path())
            .stdout(std::process::Stdio::null())
            .stderr(log.try_clone()?)
            .spawn()
            .with_context(|| format!("starting {exe}"))?;
        Ok(Self { child, log, _params: file })
    }

    /// The node's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The exit status, if the node has ended.
    pub fn exited(&mut self) -> anyhow::Result<Option<std::process::ExitStatus>> {
        Ok(self.child.try_wait()?)
    }

    /// SIGINT, up to 60 s for the exit (then SIGKILL); returns everything the node logged.
    pub fn stop(&mut self) -> anyhow::Result<String> {
        use std::io::{Read as _, Seek as _};
        // SAFETY: signalling our own child by pid.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGINT) };
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while self.child.try_wait()?.is_none() {
            if std::time::Instant::now() > deadline {
                self.child.kill()?;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let mut text = String::new();
        self.log.seek(std::io::SeekFrom::Start(0))?;
        self.log.read_to_string(&mut text)?;
        Ok(text)
    }
}
