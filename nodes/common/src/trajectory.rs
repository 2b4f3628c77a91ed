//! The SwisTrack-like trajectory CSV shared by the physics recorder, the tracker and the
//! calibration.
//!
//! # Format
//! ```text
//! # optional comment lines start with '#'
//! frame,time,id,x,y,heading
//! 0,0.000,0,0.1012,-0.0231,1.5708
//! 0,0.000,1,-0.2140,0.0502,0.0000
//! 1,0.025,0,0.1020,-0.0228,1.5690
//! ```
//! - `frame` (u64): frame counter, non-decreasing down the file; all rows of one frame
//!   are contiguous and carry the same `time`.
//! - `time` (s): strictly increasing from one frame to the next.
//! - `id` (u32): object identity, at most once per frame. Gaps are allowed: an id may
//!   be missing in some frames (occlusion, lost track).
//! - `x`, `y` (m): position in the world frame, origin at the tank centre.
//! - `heading` (rad): yaw about the world z axis.
//!
//! The six columns above are required, in any order. The only other columns allowed are
//! the [`OptionalColumn`]s (`confidence`, `vx`, `vy`); any other column is an error, so a
//! misspelt column never goes unnoticed. Every numeric value must be finite; errors name
//! the 1-based line and the column.
//!
//! What other tools write is read too: column names in any letter case, a unit after a
//! name (`time [s]`, `x (mm)`, `heading [deg]`, `vx [cm/s]`: the values are converted to
//! the format's units, see [`unit_scale`]; a unit the column cannot take is an error),
//! the names `t` for `time`, `yaw` and `theta` for `heading`, `track_id` for `id`, no
//! `frame` column (each new `time` then starts a frame), the 3-D columns of other
//! simulators' poses (`z`, `vz`, `roll`, `pitch`: read past, the format is planar), a
//! trailing comma on the header and rows (an unnamed last column that stays empty) or on
//! the rows only, CRLF line ends, a UTF-8 byte-order mark, blank or whitespace-only lines
//! and `#` comment lines anywhere.

use std::fs::File;
use std::io::{self, BufRead, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use nalgebra::Vector2;

/// The required columns, in the order the writer emits them.
pub const REQUIRED_COLUMNS: [&str; 6] = ["frame", "time", "id", "x", "y", "heading"];

/// Columns a trajectory file may carry beyond the required ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OptionalColumn {
    /// `confidence`: detection confidence of the tracker, 0..1 (dimensionless).
    Confidence,
    /// `vx`: velocity along world x (m/s), e.g. ground truth from the physics.
    Vx,
    /// `vy`: velocity along world y (m/s), e.g. ground truth from the physics.
    Vy,
}

impl OptionalColumn {
    /// Every optional column, in the order the writer emits them.
    pub const ALL: [OptionalColumn; 3] = [Self::Confidence, Self::Vx, Self::Vy];

    /// The column name in the header.
    pub fn name(self) -> &'static str {
        match self {
            Self::Confidence => "confidence",
            Self::Vx => "vx",
            Self::Vy => "vy",
        }
    }

    fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// One row: one object observed in one frame.
#[derive(Clone, Debug, PartialEq)]
pub struct TrajectorySample {
    /// Frame counter (frames).
    pub frame: u64,
    /// Time stamp of the frame (s).
    pub time: f64,
    /// Object identity (dimensionless).
    pub id: u32,
    /// Position along world x, origin at the tank centre (m).
    pub x: f64,
    /// Position along world y, origin at the tank centre (m).
    pub y: f64,
    /// Yaw about world z (rad).
    pub heading: f64,
    /// Detection confidence, 0..1 (dimensionless); `None` when the column is absent.
    pub confidence: Option<f64>,
    /// Velocity along world x (m/s); `None` when the column is absent.
    pub vx: Option<f64>,
    /// Velocity along world y (m/s); `None` when the column is absent.
    pub vy: Option<f64>,
}

impl TrajectorySample {
    /// A sample with only the required fields set.
    pub fn new(frame: u64, time: f64, id: u32, x: f64, y: f64, heading: f64) -> Self {
        Self { frame, time, id, x, y, heading, confidence: None, vx: None, vy: None }
    }

    /// Position in the world plane (m).
    pub fn position(&self) -> Vector2<f64> {
        Vector2::new(self.x, self.y)
    }

    fn optional(&self, column: OptionalColumn) -> Option<f64> {
        match column {
            OptionalColumn::Confidence => self.confidence,
            OptionalColumn::Vx => self.vx,
            OptionalColumn::Vy => self.vy,
        }
    }

    fn optional_mut(&mut self, column: OptionalColumn) -> &mut Option<f64> {
        match column {
            OptionalColumn::Confidence => &mut self.confidence,
            OptionalColumn::Vx => &mut self.vx,
            OptionalColumn::Vy => &mut self.vy,
        }
    }
}

/// The trajectory of one object: its samples in frame order (gaps allowed).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Track {
    /// Object identity (dimensionless).
    pub id: u32,
    /// Frame of each sample (frames), strictly increasing.
    pub frames: Vec<u64>,
    /// Time of each sample (s), strictly increasing.
    pub times: Vec<f64>,
    /// Position of each sample in the world plane (m).
    pub positions: Vec<Vector2<f64>>,
    /// Heading of each sample (rad).
    pub headings: Vec<f64>,
}

impl Track {
    /// Number of samples.
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    /// True when the track has no sample.
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }
}

/// A whole trajectory file in memory.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TrajectoryRecording {
    /// The optional columns the file carried.
    pub optional_columns: Vec<OptionalColumn>,
    /// All rows in file order (frames non-decreasing).
    pub samples: Vec<TrajectorySample>,
}

impl TrajectoryRecording {
    /// Reads and validates a trajectory CSV file.
    pub fn read(path: impl AsRef<Path>) -> Result<Self, TrajectoryError> {
        let path = path.as_ref();
        let file = File::open(path).map_err(|source| TrajectoryError::Io { path: path.to_path_buf(), source })?;
        Self::from_reader(file).map_err(|e| e.in_file(path))
    }

    /// Reads and validates trajectory CSV text from any reader.
    pub fn from_reader(reader: impl Read) -> Result<Self, TrajectoryError> {
        // Lines are split here rather than by a CSV reader: it does not count the comment
        // and blank lines it skips, so every later line number it reports would be off.
        let mut reader = io::BufReader::new(reader);
        let mut bytes = Vec::new();
        let mut line: u64 = 0;
        let mut layout: Option<ColumnLayout> = None;
        let mut samples: Vec<TrajectorySample> = Vec::new();
        // Ids of the current frame: a set, so a frame of many objects stays linear.
        let mut frame_ids: std::collections::HashSet<u32> = std::collections::HashSet::new();
        loop {
            bytes.clear();
            if reader.read_until(b'\n', &mut bytes).map_err(TrajectoryError::Read)? == 0 {
                break;
            }
            line += 1;
            let text = std::str::from_utf8(&bytes).map_err(|e| TrajectoryError::Csv {
                line,
                message: format!("byte {} is not UTF-8 text (a UTF-16 or Latin-1 export? save the file as UTF-8)", e.valid_up_to() + 1),
            })?;
            let text = if line == 1 { text.strip_prefix('\u{feff}').unwrap_or(text) } else { text };
            let text = text.trim();
            if text.is_empty() || text.starts_with('#') {
                continue;
            }
            let record = split_fields(text);
            let Some(layout) = &layout else {
                layout = Some(ColumnLayout::from_header(&record, line)?);
                continue;
            };
            if record.iter().all(|f| f.is_empty()) {
                continue;
            }
            let mut sample = layout.parse(&record, line)?;
            if !layout.has_frames() {
                sample.frame = match samples.last() {
                    Some(previous) if previous.time == sample.time => previous.frame,
                    Some(previous) => previous.frame + 1,
                    None => 0,
                };
            }
            if let Some(previous) = samples.last() {
                if sample.frame < previous.frame {
                    return Err(TrajectoryError::FrameOrder { line, frame: sample.frame, previous: previous.frame });
                }
                if sample.frame == previous.frame {
                    if sample.time != previous.time {
                        return Err(TrajectoryError::TimeWithinFrame {
                            line,
                            frame: sample.frame,
                            time: sample.time,
                            frame_time: previous.time,
                        });
                    }
                    if frame_ids.contains(&sample.id) {
                        return Err(TrajectoryError::DuplicateId { line, frame: sample.frame, id: sample.id });
                    }
                } else {
                    if sample.time <= previous.time {
                        return Err(TrajectoryError::TimeOrder { line, time: sample.time, previous: previous.time });
                    }
                    frame_ids.clear();
                }
            }
            frame_ids.insert(sample.id);
            samples.push(sample);
        }
        let layout = layout.ok_or(TrajectoryError::NoHeader)?;
        Ok(Self { optional_columns: layout.optional_columns(), samples })
    }

    /// Writes the whole recording as CSV (frame by frame, flushed).
    pub fn write(&self, path: impl AsRef<Path>) -> Result<(), TrajectoryError> {
        let mut writer = TrajectoryWriter::create(path, &self.optional_columns)?;
        for frame in self.samples.chunk_by(|a, b| a.frame == b.frame) {
            writer.write_frame(frame)?;
        }
        Ok(())
    }

    /// The samples grouped per object, sorted by id; each track in frame order.
    pub fn tracks(&self) -> Vec<Track> {
        let mut tracks: std::collections::BTreeMap<u32, Track> = std::collections::BTreeMap::new();
        for s in &self.samples {
            let track = tracks.entry(s.id).or_insert_with(|| Track { id: s.id, ..Track::default() });
            track.frames.push(s.frame);
            track.times.push(s.time);
            track.positions.push(s.position());
            track.headings.push(s.heading);
        }
        tracks.into_values().collect()
    }

    /// Number of distinct frames.
    pub fn frame_count(&self) -> usize {
        self.samples.chunk_by(|a, b| a.frame == b.frame).count()
    }

    /// Time span from the first to the last frame (s); 0 when empty.
    pub fn duration(&self) -> f64 {
        match (self.samples.first(), self.samples.last()) {
            (Some(first), Some(last)) => last.time - first.time,
            _ => 0.0,
        }
    }
}

/// The comma-separated fields of one line, trimmed, surrounding double quotes removed
/// (`""` inside a quoted field is one `"`). No field of the format holds a comma.
fn split_fields(text: &str) -> Vec<std::borrow::Cow<'_, str>> {
    text.split(',')
        .map(|field| {
            let field = field.trim();
            match field.strip_prefix('"').and_then(|f| f.strip_suffix('"')) {
                Some(inner) if inner.contains("\"\"") => std::borrow::Cow::Owned(inner.replace("\"\"", "\"")),
                Some(inner) => std::borrow::Cow::Borrowed(inner.trim()),
                None => std::borrow::Cow::Borrowed(field),
            }
        })
        .collect()
}

/// The factor that converts a column's values from `unit` (as a header states it) to the
/// format's unit: `s`, `ms`, `us` for time; `m`, `cm`, `mm` for positions; `rad`, `deg`
/// (`degrees`, `°`) for the heading; `m/s`, `cm/s`, `mm/s` for velocities; `1` for the
/// confidence. `Err` with the format's unit (`None`: the column takes none).
pub fn unit_scale(column: &str, unit: &str) -> Result<f64, Option<&'static str>> {
    let (own, scales): (Option<&'static str>, &[(&str, f64)]) = match column {
        "time" => (Some("s"), &[("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("µs", 1e-6)]),
        "x" | "y" => (Some("m"), &[("m", 1.0), ("cm", 1e-2), ("mm", 1e-3)]),
        "heading" => (
            Some("rad"),
            &[
                ("rad", 1.0),
                ("deg", std::f64::consts::PI / 180.0),
                ("degrees", std::f64::consts::PI / 180.0),
                ("°", std::f64::consts::PI / 180.0),
            ],
        ),
        "vx" | "vy" => (Some("m/s"), &[("m/s", 1.0), ("cm/s", 1e-2), ("mm/s", 1e-3)]),
        "confidence" => (Some("1"), &[("1", 1.0)]),
        _ => (None, &[]),
    };
    scales.iter().find(|(name, _)| name.eq_ignore_ascii_case(unit)).map(|&(_, scale)| scale).ok_or(own)
}

/// The format's name for a column other tools name differently.
fn canonical_name(name: &str) -> &str {
    match name {
        "t" => "time",
        "yaw" | "theta" => "heading",
        "track_id" => "id",
        other => other,
    }
}

/// Columns of 3-D poses the planar format reads past.
const IGNORED_COLUMNS: [&str; 4] = ["z", "vz", "roll", "pitch"];

/// Splits a header name into the lower-case column name and the unit it states, if any:
/// `Time [s]` -> (`time`, `s`), `x (m)` -> (`x`, `m`).
fn split_unit(name: &str) -> (String, Option<&str>) {
    for (open, close) in [('[', ']'), ('(', ')')] {
        if let Some(inner) = name.strip_suffix(close) {
            if let Some(at) = inner.rfind(open) {
                return (inner[..at].trim().to_ascii_lowercase(), Some(inner[at + open.len_utf8()..].trim()));
            }
        }
    }
    (name.to_ascii_lowercase(), None)
}

/// Where each column sits in a parsed header.
struct ColumnLayout {
    /// Index of each required column, in [`REQUIRED_COLUMNS`] order (`frame`: `None`
    /// when the file has no frame column).
    required: [Option<usize>; 6],
    /// Factor to the format's unit of each required column.
    scale: [f64; 6],
    /// Each optional column present, with its index and factor to the format's unit.
    optional: Vec<(OptionalColumn, usize, f64)>,
    /// Fields in the header, unnamed trailing ones included (those must stay empty).
    width: usize,
    /// Named fields in the header (the rows must have at least these).
    named: usize,
}

impl ColumnLayout {
    fn from_header(header: &[std::borrow::Cow<'_, str>], line: u64) -> Result<Self, TrajectoryError> {
        // A header of one field holding another separator: say so, not "unknown column".
        if header.len() == 1 {
            if let Some(separator) = [';', '\t', '|', ' '].into_iter().find(|&c| header[0].contains(c)) {
                return Err(TrajectoryError::Separator { line, separator, header: header[0].to_string() });
            }
        }
        // Unnamed fields at the end are a trailing comma; an unnamed one before a named
        // column is a missing name.
        let named = header.iter().rposition(|n| !n.is_empty()).map_or(0, |last| last + 1);
        let mut required = [None; 6];
        let mut scale = [1.0; 6];
        let mut optional = Vec::new();
        let mut names: Vec<String> = Vec::new();
        for (index, text) in header.iter().take(named).enumerate() {
            let text: &str = text;
            let (name, unit) = split_unit(text);
            if name.is_empty() {
                return Err(TrajectoryError::UnnamedColumn { line, position: index + 1 });
            }
            if IGNORED_COLUMNS.contains(&name.as_str()) {
                continue;
            }
            let name = canonical_name(&name).to_owned();
            if names.contains(&name) {
                return Err(TrajectoryError::DuplicateColumn { line, column: text.to_owned() });
            }
            let factor = match unit {
                Some(unit) => unit_scale(&name, unit).map_err(|expected| TrajectoryError::Unit {
                    line,
                    column: text.to_owned(),
                    unit: unit.to_owned(),
                    expected,
                })?,
                None => 1.0,
            };
            if let Some(slot) = REQUIRED_COLUMNS.iter().position(|c| *c == name) {
                required[slot] = Some(index);
                scale[slot] = factor;
            } else if let Some(column) = OptionalColumn::from_name(&name) {
                optional.push((column, index, factor));
            } else {
                return Err(TrajectoryError::UnknownColumn { line, column: text.to_owned() });
            }
            names.push(name);
        }
        // The frame column alone may be missing (slot 0).
        if let Some(slot) = required.iter().skip(1).position(Option::is_none) {
            return Err(TrajectoryError::MissingColumn { line, column: REQUIRED_COLUMNS[slot + 1] });
        }
        optional.sort_by_key(|&(column, _, _)| column);
        Ok(Self { required, scale, optional, width: header.len(), named })
    }

    fn optional_columns(&self) -> Vec<OptionalColumn> {
        self.optional.iter().map(|(c, _, _)| *c).collect()
    }

    /// Whether the file numbers its frames (else the reader does, one per new time).
    fn has_frames(&self) -> bool {
        self.required[0].is_some()
    }

    fn parse(&self, record: &[std::borrow::Cow<'_, str>], line: u64) -> Result<TrajectorySample, TrajectoryError> {
        // Every column the header names must be there; anything past them (unnamed
        // header fields, a trailing comma on the rows only) must be empty.
        let named = self.named;
        if record.len() < named {
            return Err(TrajectoryError::Csv {
                line,
                message: format!("row has {} fields but the header has {}", record.len(), self.width),
            });
        }
        if let Some(extra) = record.iter().skip(named).position(|v| !v.is_empty()) {
            return Err(TrajectoryError::Csv {
                line,
                message: format!(
                    "field {} holds `{}` but the header names only {named} columns",
                    named + extra + 1,
                    &record[named + extra]
                ),
            });
        }
        let field = |slot: usize| self.required[slot].map_or("0", |i| &record[i]);
        let real = |slot: usize| parse_real(field(slot), line, REQUIRED_COLUMNS[slot]).map(|v| v * self.scale[slot]);
        let mut sample = TrajectorySample::new(
            parse_integer(field(0), line, "frame")?,
            real(1)?,
            parse_integer(field(2), line, "id")?,
            real(3)?,
            real(4)?,
            real(5)?,
        );
        for &(column, index, factor) in &self.optional {
            *sample.optional_mut(column) = Some(parse_real(&record[index], line, column.name())? * factor);
        }
        Ok(sample)
    }
}

fn parse_integer<T: std::str::FromStr>(text: &str, line: u64, column: &'static str) -> Result<T, TrajectoryError> {
    text.parse().map_err(|_| TrajectoryError::Parse { line, column, value: text.to_owned() })
}

fn parse_real(text: &str, line: u64, column: &'static str) -> Result<f64, TrajectoryError> {
    let value: f64 = text.parse().map_err(|_| TrajectoryError::Parse { line, column, value: text.to_owned() })?;
    if !value.is_finite() {
        return Err(TrajectoryError::NonFinite { line, column, value: text.to_owned() });
    }
    Ok(value)
}

/// Streaming writer: writes the header at creation and flushes after every frame, so a
/// crashed recorder leaves a file that reads back up to the last whole frame.
pub struct TrajectoryWriter<W: Write> {
    out: W,
    optional_columns: Vec<OptionalColumn>,
    last: Option<(u64, f64)>,
    rows_written: u64,
}

impl TrajectoryWriter<BufWriter<File>> {
    /// Creates (truncates) `path` and writes the header.
    pub fn create(path: impl AsRef<Path>, optional_columns: &[OptionalColumn]) -> Result<Self, TrajectoryError> {
        let path = path.as_ref();
        let file = File::create(path).map_err(|source| TrajectoryError::Io { path: path.to_path_buf(), source })?;
        Self::new(BufWriter::new(file), optional_columns).map_err(|e| e.in_file(path))
    }
}

impl<W: Write> TrajectoryWriter<W> {
    /// Wraps `out` and writes the header. Optional columns are emitted in the order of
    /// [`OptionalColumn::ALL`]; duplicates are ignored.
    pub fn new(mut out: W, optional_columns: &[OptionalColumn]) -> Result<Self, TrajectoryError> {
        let optional_columns: Vec<OptionalColumn> = OptionalColumn::ALL.into_iter().filter(|c| optional_columns.contains(c)).collect();
        let mut header = REQUIRED_COLUMNS.join(",");
        for column in &optional_columns {
            header.push(',');
            header.push_str(column.name());
        }
        writeln!(out, "{header}").and_then(|_| out.flush()).map_err(TrajectoryError::Write)?;
        Ok(Self { out, optional_columns, last: None, rows_written: 0 })
    }

    /// Writes the rows of one frame and flushes. All samples must share one frame number
    /// and time, later than the previous frame's; every value must be finite, and every
    /// optional column of this writer must be set.
    pub fn write_frame(&mut self, samples: &[TrajectorySample]) -> Result<(), TrajectoryError> {
        let Some(first) = samples.first() else { return Ok(()) };
        if let Some((frame, time)) = self.last {
            if first.frame <= frame {
                return Err(TrajectoryError::FrameOrder { line: self.next_line(), frame: first.frame, previous: frame });
            }
            if first.time <= time {
                return Err(TrajectoryError::TimeOrder { line: self.next_line(), time: first.time, previous: time });
            }
        }
        let mut text = String::new();
        for (k, s) in samples.iter().enumerate() {
            let line = self.next_line() + k as u64;
            if s.frame != first.frame {
                return Err(TrajectoryError::FrameOrder { line, frame: s.frame, previous: first.frame });
            }
            if s.time != first.time {
                return Err(TrajectoryError::TimeWithinFrame { line, frame: s.frame, time: s.time, frame_time: first.time });
            }
            if samples[..k].iter().any(|o| o.id == s.id) {
                return Err(TrajectoryError::DuplicateId { line, frame: s.frame, id: s.id });
            }
            for (column, value) in [("time", s.time), ("x", s.x), ("y", s.y), ("heading", s.heading)] {
                check_finite(value, line, column)?;
            }
            text.push_str(&format!("{},{},{},{},{},{}", s.frame, s.time, s.id, s.x, s.y, s.heading));
            for &column in &self.optional_columns {
                let value = s.optional(column).ok_or(TrajectoryError::MissingValue { line, column: column.name() })?;
                check_finite(value, line, column.name())?;
                text.push_str(&format!(",{value}"));
            }
            text.push('\n');
        }
        self.out.write_all(text.as_bytes()).and_then(|_| self.out.flush()).map_err(TrajectoryError::Write)?;
        self.last = Some((first.frame, first.time));
        self.rows_written += samples.len() as u64;
        Ok(())
    }

    /// Flushes and returns the underlying writer.
    pub fn into_inner(mut self) -> Result<W, TrajectoryError> {
        self.out.flush().map_err(TrajectoryError::Write)?;
        Ok(self.out)
    }

    /// The 1-based file line the next row will occupy (the header is line 1).
    fn next_line(&self) -> u64 {
        self.rows_written + 2
    }
}

fn check_finite(value: f64, line: u64, column: &'static str) -> Result<(), TrajectoryError> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(TrajectoryError::NonFinite { line, column, value: value.to_string() })
    }
}

/// What can be wrong with a trajectory file. Line numbers are 1-based file lines.
#[derive(Debug, thiserror::Error)]
pub enum TrajectoryError {
    /// The file could not be opened or read.
    #[error("trajectory file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// Reading an opened file failed (e.g. the path is a directory).
    #[error("reading trajectory: {0}")]
    Read(io::Error),
    /// Writing failed.
    #[error("writing trajectory: {0}")]
    Write(io::Error),
    /// The CSV structure is broken (e.g. a row with the wrong number of fields).
    #[error("trajectory CSV line {line}: {message}")]
    Csv {
        /// 1-based file line.
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// The file holds no header line (it is empty, blank or only comments).
    #[error("trajectory file is empty: no header line (expected `frame,time,id,x,y,heading`)")]
    NoHeader,
    /// The header is separated by something other than commas.
    #[error("trajectory header (line {line}) `{header}` is separated by {separator:?}, but the format is comma-separated (frame,time,id,x,y,heading)")]
    Separator {
        /// 1-based file line of the header.
        line: u64,
        /// The separator found.
        separator: char,
        /// The header as read.
        header: String,
    },
    /// A required column is absent from the header.
    #[error("trajectory header (line {line}) lacks required column `{column}` (required: frame,time,id,x,y,heading)")]
    MissingColumn {
        /// 1-based file line of the header.
        line: u64,
        /// The absent column.
        column: &'static str,
    },
    /// A column that is neither required nor in the optional set.
    #[error(
        "trajectory header (line {line}) has unknown column `{column}` (allowed beyond frame,time,id,x,y,heading: confidence, vx, vy)"
    )]
    UnknownColumn {
        /// 1-based file line of the header.
        line: u64,
        /// The unexpected column.
        column: String,
    },
    /// A column appears twice in the header (letter case aside).
    #[error("trajectory header (line {line}) repeats column `{column}`")]
    DuplicateColumn {
        /// 1-based file line of the header.
        line: u64,
        /// The repeated column.
        column: String,
    },
    /// A header field without a name before named ones.
    #[error("trajectory header (line {line}): column {position} has no name")]
    UnnamedColumn {
        /// 1-based file line of the header.
        line: u64,
        /// 1-based position of the field.
        position: usize,
    },
    /// A column states a unit it cannot be converted from.
    #[error("trajectory header (line {line}), column `{column}`: unit `{unit}` {}", match expected { Some(u) => format!("is not one this column is read in (the format's unit is `{u}`; time: s, ms, us; x, y: m, cm, mm; heading: rad, deg; vx, vy: m/s, cm/s, mm/s)"), None => "given to a column that takes no unit".to_owned() })]
    Unit {
        /// 1-based file line of the header.
        line: u64,
        /// The header field as written.
        column: String,
        /// The unit it states.
        unit: String,
        /// The unit of the format, if the column has one.
        expected: Option<&'static str>,
    },
    /// A value does not parse as the column's type.
    #[error("trajectory line {line}, column `{column}`: cannot parse `{value}`")]
    Parse {
        /// 1-based file line.
        line: u64,
        /// The column.
        column: &'static str,
        /// The text found.
        value: String,
    },
    /// A value is NaN or infinite.
    #[error("trajectory line {line}, column `{column}`: non-finite value `{value}`")]
    NonFinite {
        /// 1-based file line.
        line: u64,
        /// The column.
        column: &'static str,
        /// The value found.
        value: String,
    },
    /// An optional column of the writer has no value in a sample.
    #[error("trajectory line {line}: sample has no value for column `{column}`")]
    MissingValue {
        /// 1-based file line it would have occupied.
        line: u64,
        /// The column without a value.
        column: &'static str,
    },
    /// Frame numbers go backwards.
    #[error("trajectory line {line}: frame {frame} comes after frame {previous}")]
    FrameOrder {
        /// 1-based file line.
        line: u64,
        /// The frame found (frames).
        frame: u64,
        /// The frame before it (frames).
        previous: u64,
    },
    /// A new frame's time is not later than the previous frame's.
    #[error("trajectory line {line}: time {time} s is not after the previous frame's {previous} s")]
    TimeOrder {
        /// 1-based file line.
        line: u64,
        /// The time found (s).
        time: f64,
        /// The previous frame's time (s).
        previous: f64,
    },
    /// Rows of one frame disagree on the time.
    #[error("trajectory line {line}: frame {frame} has time {time} s but the frame started at {frame_time} s")]
    TimeWithinFrame {
        /// 1-based file line.
        line: u64,
        /// The frame (frames).
        frame: u64,
        /// The time found (s).
        time: f64,
        /// The time of the frame's first row (s).
        frame_time: f64,
    },
    /// An id appears twice in one frame.
    #[error("trajectory line {line}: id {id} appears twice in frame {frame}")]
    DuplicateId {
        /// 1-based file line.
        line: u64,
        /// The frame (frames).
        frame: u64,
        /// The repeated id.
        id: u32,
    },
    /// Any of the above, in a named file.
    #[error("{path}: {source}")]
    InFile {
        /// The file.
        path: PathBuf,
        /// The error inside it.
        source: Box<TrajectoryError>,
    },
}

impl TrajectoryError {
    fn in_file(self, path: &Path) -> Self {
        match self {
            e @ (TrajectoryError::Io { .. } | TrajectoryError::InFile { .. }) => e,
            e => TrajectoryError::InFile { path: path.to_path_buf(), source: Box::new(e) },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<TrajectoryRecording, TrajectoryError> {
        TrajectoryRecording::from_reader(text.as_bytes())
    }

    #[test]
    fn reads_rows_gaps_and_comments() {
        let rec = read("# recorded by test\nframe,time,id,x,y,heading\n0,0.0,0,0.1,0.2,0.3\n0,0.0,1,-0.1,-0.2,0\n2,0.05,1,-0.1,-0.25,0\n")
            .unwrap();
        assert_eq!(rec.samples.len(), 3);
        assert_eq!(rec.frame_count(), 2);
        assert!((rec.duration() - 0.05).abs() < 1e-15);
        let tracks = rec.tracks();
        assert_eq!(tracks.len(), 2);
        assert_eq!(tracks[0].frames, vec![0]);
        assert_eq!(tracks[1].frames, vec![0, 2]);
        assert_eq!(tracks[1].positions[1], Vector2::new(-0.1, -0.25));
    }

    #[test]
    fn columns_may_come_in_any_order_with_optional_ones() {
        let rec = read("id,frame,vx,time,x,y,heading,confidence\n3,7,0.5,1.0,0.1,0.2,0.3,0.9\n").unwrap();
        let s = &rec.samples[0];
        assert_eq!((s.id, s.frame, s.time), (3, 7, 1.0));
        assert_eq!((s.confidence, s.vx, s.vy), (Some(0.9), Some(0.5), None));
        assert_eq!(rec.optional_columns, vec![OptionalColumn::Confidence, OptionalColumn::Vx]);
    }

    #[test]
    fn unknown_missing_and_duplicate_columns_are_errors() {
        let e = read("frame,time,id,x,y,heading,colour\n").unwrap_err();
        assert!(matches!(&e, TrajectoryError::UnknownColumn { column, line: 1 } if column == "colour"), "{e}");
        let e = read("frame,time,id,x,heading\n").unwrap_err();
        assert!(matches!(e, TrajectoryError::MissingColumn { column: "y", .. }), "{e}");
        let e = read("frame,time,id,x,y,heading,x\n").unwrap_err();
        assert!(matches!(e, TrajectoryError::DuplicateColumn { .. }), "{e}");
    }

    #[test]
    fn non_finite_and_unparsable_values_name_line_and_column() {
        let e = read("frame,time,id,x,y,heading\n0,0,0,0,0,0\n1,0.1,0,NaN,0,0\n").unwrap_err();
        assert!(matches!(e, TrajectoryError::NonFinite { line: 3, column: "x", .. }), "{e}");
        assert!(e.to_string().contains("line 3") && e.to_string().contains("`x`"));
        let e = read("frame,time,id,x,y,heading\n0,0,0,0,inf,0\n").unwrap_err();
        assert!(matches!(e, TrajectoryError::NonFinite { line: 2, column: "y", .. }), "{e}");
        let e = read("frame,time,id,x,y,heading\n0,0,-1,0,0,0\n").unwrap_err();
        assert!(matches!(e, TrajectoryError::Parse { line: 2, column: "id", .. }), "{e}");
        let e = read("frame,time,id,x,y,heading\n0,0,0,0,0\n").unwrap_err();
        assert!(matches!(e, TrajectoryError::Csv { line: 2, .. }), "{e}");
    }

    /// Other simulators' writers: before, each of these was refused (letter case, units,
    /// trailing commas, a whitespace-only line) or refused with an unhelpful message
    /// (empty file, semicolons), and one frame of many objects took quadratic time.
    #[test]
    fn other_writers_quirks_are_read_or_named() {
        let reference = read("frame,time,id,x,y,heading\n0,0.5,3,0.1,0.2,0.3\n1,0.6,3,0.1,0.25,0.3\n").unwrap();
        for text in [
            "Frame,Time,ID,X,Y,Heading\n0,0.5,3,0.1,0.2,0.3\n1,0.6,3,0.1,0.25,0.3\n",
            "frame,time [s],id,x (m),y [m],heading [rad]\n0,0.5,3,0.1,0.2,0.3\n1,0.6,3,0.1,0.25,0.3\n",
            "frame,time,id,x,y,heading,\r\n0,0.5,3,0.1,0.2,0.3,\r\n1,0.6,3,0.1,0.25,0.3,\r\n",
            "frame,time,id,x,y,heading\n0,0.5,3,0.1,0.2,0.3,\n1,0.6,3,0.1,0.25,0.3,\n",
            "\u{feff}# from sim X\n\n  \nframe,time,id,x,y,heading\n0,0.5,3,0.1,0.2,0.3\n   \n# pause\n1,0.6,3,0.1,0.25,0.3",
        ] {
            assert_eq!(read(text).map_err(|e| e.to_string()), Ok(reference.clone()), "{text:?}");
        }
        let e = read("frame,time,id,x [in],y,heading\n").unwrap_err();
        assert!(matches!(&e, TrajectoryError::Unit { line: 1, unit, expected: Some("m"), .. } if unit == "in"), "{e}");
        assert!(e.to_string().contains("m, cm, mm"), "{e}");
        let e = read("# c\nframe [1],time,id,x,y,heading\n").unwrap_err();
        assert!(matches!(&e, TrajectoryError::Unit { line: 2, expected: None, .. }), "{e}");
        let e = read("frame,time,id,x,Y,heading,y\n").unwrap_err();
        assert!(matches!(&e, TrajectoryError::DuplicateColumn { column, .. } if column == "y"), "{e}");
        let e = read("frame,,time,id,x,y,heading\n").unwrap_err();
        assert!(matches!(e, TrajectoryError::UnnamedColumn { line: 1, position: 2 }), "{e}");
        let e = read("frame,time,id,x,y,heading,\n0,0,0,0,0,0,7\n").unwrap_err();
        assert!(matches!(e, TrajectoryError::Csv { line: 2, .. }) && e.to_string().contains("`7`"), "{e}");
        let e = read("frame;time;id;x;y;heading\n0;0;0;0;0;0\n").unwrap_err();
        assert!(matches!(e, TrajectoryError::Separator { line: 1, separator: ';', .. }), "{e}");
        for empty in ["", "\n \n", "# only a comment\n"] {
            assert!(matches!(read(empty), Err(TrajectoryError::NoHeader)), "{empty:?}");
        }
        let latin1 = b"frame,time,id,x,y,heading\n0,0,0,0,\xe9,0\n";
        let e = TrajectoryRecording::from_reader(&latin1[..]).unwrap_err();
        assert!(e.to_string().contains("line 2") && e.to_string().contains("not UTF-8"), "{e}");
        // 200 000 objects in one frame: linear, not quadratic (was ~2 s in release).
        let mut wide = String::from("frame,time,id,x,y,heading\n");
        for id in 0..200_000 {
            wide.push_str(&format!("0,0,{id},0,0,0\n"));
        }
        let started = std::time::Instant::now();
        assert_eq!(read(&wide).unwrap().samples.len(), 200_000);
        assert!(started.elapsed().as_secs_f64() < 1.0, "{:?}", started.elapsed());
    }

    /// Other simulators' recordings: units other than the format's (converted), other
    /// names for time, heading and id, no frame column, 3-D pose columns. Each was
    /// refused before.
    #[test]
    fn other_simulators_units_names_and_3d_columns_are_read() {
        let reference =
            read("frame,time,id,x,y,heading,vx\n0,0.5,3,0.1,0.2,0.3,0.02\n0,0.5,4,-0.1,0,0,0\n1,0.6,3,0.1,0.25,0.3,0.5\n").unwrap();
        let close = |rec: &TrajectoryRecording| {
            rec.samples.len() == reference.samples.len()
                && rec.samples.iter().zip(&reference.samples).all(|(a, b)| {
                    (a.frame, a.id) == (b.frame, b.id)
                        && [(a.time, b.time), (a.x, b.x), (a.y, b.y), (a.heading, b.heading), (a.vx.unwrap_or(9.0), b.vx.unwrap_or(9.0))]
                            .iter()
                            .all(|(u, v)| (u - v).abs() < 1e-12)
                })
        };
        for text in [
            "frame,time [ms],id,x [mm],y [cm],heading [deg],vx [mm/s]\n0,500,3,100,20,17.188733853924695,20\n0,500,4,-100,0,0,0\n1,600,3,100,25,17.188733853924695,500\n",
            "t,track_id,x,y,yaw,vx\n0.5,3,0.1,0.2,0.3,0.02\n0.5,4,-0.1,0,0,0\n0.6,3,0.1,0.25,0.3,0.5\n",
            "time,id,x,y,z,theta,vx,vz,roll,pitch\n0.5,3,0.1,0.2,0.22,0.3,0.02,0,0,0\n0.5,4,-0.1,0,0.22,0,0,0,0,0\n0.6,3,0.1,0.25,0.21,0.3,0.5,0.1,0,0\n",
        ] {
            let rec = read(text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
            assert!(close(&rec), "{text:?}: {:?}", rec.samples);
        }
        // Time going back with no frame column is still an error, on its line.
        let e = read("time,id,x,y,heading\n0.5,0,0,0,0\n0.4,0,0,0,0\n").unwrap_err();
        assert!(matches!(e, TrajectoryError::TimeOrder { line: 3, .. }), "{e}");
        // A name and its alias together are one column twice.
        let e = read("time,t,id,x,y,heading\n").unwrap_err();
        assert!(matches!(&e, TrajectoryError::DuplicateColumn { column, .. } if column == "t"), "{e}");
        // A row must still fill the 3-D columns its header names.
        let e = read("time,id,x,y,heading,z\n0.5,0,0,0,0\n").unwrap_err();
        assert!(matches!(e, TrajectoryError::Csv { line: 2, .. }), "{e}");
    }

    /// Comment lines shifted every later line number: the csv reader does not count them.
    #[test]
    fn line_numbers_count_comment_and_blank_lines() {
        let e = read("# a\n  # b\nframe,time,id,x,y,heading\r\n0,0,0,0,0,0\r\n# c\r\n\r\n1,0.1,0,zz,0,0\r\n").unwrap_err();
        assert!(matches!(e, TrajectoryError::Parse { line: 7, column: "x", .. }), "{e}");
        let e = read("# a\nframe,time,id,x,y\n").unwrap_err();
        assert!(matches!(e, TrajectoryError::MissingColumn { line: 2, column: "heading" }), "{e}");
    }

    #[test]
    fn ordering_rules_are_enforced() {
        let e = read("frame,time,id,x,y,heading\n1,0.1,0,0,0,0\n0,0.2,0,0,0,0\n").unwrap_err();
        assert!(matches!(e, TrajectoryError::FrameOrder { line: 3, .. }), "{e}");
        let e = read("frame,time,id,x,y,heading\n0,0.1,0,0,0,0\n1,0.1,0,0,0,0\n").unwrap_err();
        assert!(matches!(e, TrajectoryError::TimeOrder { line: 3, .. }), "{e}");
        let e = read("frame,time,id,x,y,heading\n0,0.1,0,0,0,0\n0,0.2,1,0,0,0\n").unwrap_err();
        assert!(matches!(e, TrajectoryError::TimeWithinFrame { line: 3, .. }), "{e}");
        let e = read("frame,time,id,x,y,heading\n0,0.1,4,0,0,0\n0,0.1,4,0,0,0\n").unwrap_err();
        assert!(matches!(e, TrajectoryError::DuplicateId { line: 3, id: 4, .. }), "{e}");
    }

    #[test]
    fn writer_round_trips_and_flushes_each_frame() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.csv");
        let mut w = TrajectoryWriter::create(&path, &[OptionalColumn::Vy, OptionalColumn::Vx]).unwrap();
        let mut a = TrajectorySample::new(0, 0.0, 0, 0.125, -0.25, 1.0);
        a.vx = Some(0.5);
        a.vy = Some(-0.5);
        let mut b = a.clone();
        b.id = 1;
        b.x = 1.0 / 3.0;
        w.write_frame(&[a.clone(), b.clone()]).unwrap();
        // Flushed: the file already reads back without dropping the writer.
        let partial = TrajectoryRecording::read(&path).unwrap();
        assert_eq!(partial.samples, vec![a.clone(), b.clone()]);
        let mut c = a.clone();
        c.frame = 1;
        c.time = 0.025;
        w.write_frame(&[c.clone()]).unwrap();
        drop(w);
        let back = TrajectoryRecording::read(&path).unwrap();
        assert_eq!(back.samples, vec![a, b, c]);
        assert_eq!(back.optional_columns, vec![OptionalColumn::Vx, OptionalColumn::Vy]);
    }

    #[test]
    fn writer_rejects_bad_frames() {
        let mut w = TrajectoryWriter::new(Vec::new(), &[]).unwrap();
        w.write_frame(&[TrajectorySample::new(5, 1.0, 0, 0.0, 0.0, 0.0)]).unwrap();
        let e = w.write_frame(&[TrajectorySample::new(5, 1.1, 0, 0.0, 0.0, 0.0)]).unwrap_err();
        assert!(matches!(e, TrajectoryError::FrameOrder { line: 3, .. }), "{e}");
        let e = w.write_frame(&[TrajectorySample::new(6, 1.1, 0, f64::NAN, 0.0, 0.0)]).unwrap_err();
        assert!(matches!(e, TrajectoryError::NonFinite { line: 3, column: "x", .. }), "{e}");
        let mut w = TrajectoryWriter::new(Vec::new(), &[OptionalColumn::Confidence]).unwrap();
        let e = w.write_frame(&[TrajectorySample::new(0, 0.0, 0, 0.0, 0.0, 0.0)]).unwrap_err();
        assert!(matches!(e, TrajectoryError::MissingValue { column: "confidence", .. }), "{e}");
    }

    #[test]
    fn file_errors_name_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.csv");
        std::fs::write(&path, "frame,time,id,x,y,heading,w\n").unwrap();
        let e = TrajectoryRecording::read(&path).unwrap_err();
        assert!(e.to_string().contains("bad.csv") && e.to_string().contains("`w`"), "{e}");
        let e = TrajectoryRecording::read(dir.path().join("missing.csv")).unwrap_err();
        assert!(matches!(e, TrajectoryError::Io { .. }));
    }
}
