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
