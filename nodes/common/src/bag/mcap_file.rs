//! The MCAP file of a bag, written so that it is a complete, readable MCAP file at every
//! moment after [`McapFile::create`], even if the process is killed in the middle of a
//! write.
//!
//! Layout while recording:
//!
//! ```text
//! magic, header, records ... | padding record | Data End | Footer (no summary) | magic
//!                            ^ committed
//! ```
//!
//! The `mcap` crate's writer fills a buffer in memory. A commit puts the buffered records
//! where the padding record starts, in two writes: first everything but the first 9 bytes,
//! followed by a new, shorter padding header, inside the old padding (readers skip it
//! there, so a write torn by `kill -9` changes nothing they see); then the first record
//! header (9 bytes, never across a page boundary: a torn write is cut at page boundaries)
//! over the old padding header. Readers skip the padding record (opcode 0x80, the range
//! MCAP reserves for private records), find the footer where they expect it, and with
//! summary start 0 scan the data section.
//!
//! When the padding is used up, the file grows by a quarter of its size (at least
//! [`GROW`], so growths are few: about 3 per doubling of the file, the new part a hole
//! until written), in three writes: a new end (Data End, Footer, magic; the last bytes of
//! a page) further on, whose Footer names the old end's Footer as the summary start; the
//! padding header stretched up to the new end; the new Footer's summary start set back to
//! 0. Between the first and the last write the old end (Data End, Footer, magic) stands
//! inside the file. Readers that scan the data section up to the footer stop at its Data
//! End (rosbag2's MCAP reader, the `mcap` crate, Foxglove's Python reader) or at the
//! summary start (rosbags, which would otherwise read the old magic as a record of absurd
//! length); a summary read from there finds the old Footer, which says "no summary"
//! (Foxglove's reader, the `mcap` crate: an empty summary; rosbag2: falls back to a scan).
//! [`McapFile::finish`] writes the summary and footer over the padding and cuts the file
//! there.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

/// MCAP's magic bytes (start and end of a file).
const MAGIC: &[u8; 8] = b"\x89MCAP0\r\n";

/// Opcode of the padding record (private range: readers skip it).
const PAD_OPCODE: u8 = 0x80;

/// Record header: opcode and length, bytes.
const HEADER: u64 = 9;

/// Write granularity of the page cache: a write cut short by a fatal signal stops at one
/// of these boundaries, bytes.
const PAGE: u64 = 4096;

/// Least growth of the padding when it is used up, bytes (a hole in the file until
/// written).
pub(crate) const GROW: u64 = 1 << 20;

/// Length of the provisional end of file, bytes.
const END_LEN: u64 = 50;

/// Offset of the Footer in [`PROVISIONAL_END`], bytes.
const FOOTER_AT: u64 = 13;

/// Offset of the Footer's summary start in [`PROVISIONAL_END`], bytes.
const SUMMARY_START_AT: u64 = FOOTER_AT + HEADER;

/// The provisional end of file: Data End (data CRC 0 = not computed), a Footer whose
/// summary start 0 says "no summary" (readers then scan the data section), the magic.
const PROVISIONAL_END: [u8; END_LEN as usize] = {
    let mut b = [0u8; END_LEN as usize];
    // Data End: opcode 0x0F, length 4, data_section_crc 0.
    b[0] = 0x0F;
    b[1] = 4;
    // Footer at 13: opcode 0x02, length 20, summary_start 0, summary_offset_start 0, crc 0.
    b[13] = 0x02;
    b[14] = 20;
    // Magic at 42.
    let mut i = 0;
    while i < 8 {
        b[42 + i] = MAGIC[i];
        i += 1;
    }
    b
};

/// Header of a padding record with `payload` bytes.
fn pad_header(payload: u64) -> [u8; HEADER as usize] {
    let mut h = [0u8; HEADER as usize];
    h[0] = PAD_OPCODE;
    h[1..].copy_from_slice(&payload.to_le_bytes());
    h
}

/// Where the file's bytes go (a `File`; a recorder in tests).
pub(crate) trait Storage {
    /// Writes all of `data` at `offset`, extending the file if needed.
    fn write_at(&mut self, data: &[u8], offset: u64) -> io::Result<()>;
    /// Cuts or extends the file to `len` bytes.
    fn set_len(&mut self, len: u64) -> io::Result<()>;
}

impl Storage for File {
    fn write_at(&mut self, data: &[u8], offset: u64) -> io::Result<()> {
        self.write_all_at(data, offset)
    }

    fn set_len(&mut self, len: u64) -> io::Result<()> {
        File::set_len(self, len)
    }
}

/// Records written by the MCAP writer but not yet in the file.
#[derive(Debug, Default)]
struct Staging {
    /// Where the next committed record goes (the padding record's start), bytes.
    committed: u64,
    /// Records after `committed`.
    buf: Vec<u8>,
    /// Write position within `buf`.
    pos: usize,
}

/// The MCAP writer's output: a seekable window over the uncommitted end of the file.
#[derive(Debug, Clone)]
struct Sink(Arc<Mutex<Staging>>);

fn lock(staging: &Mutex<Staging>) -> io::Result<MutexGuard<'_, Staging>> {
    staging.lock().map_err(|_| io::Error::other("the bag's write buffer was poisoned by a panic"))
}

impl Write for Sink {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let mut s = lock(&self.0)?;
        let pos = s.pos;
        let overlap = (s.buf.len() - pos).min(data.len());
        s.buf[pos..pos + overlap].copy_from_slice(&data[..overlap]);
        s.buf.extend_from_slice(&data[overlap..]);
        s.pos = pos + data.len();
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Seek for Sink {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let mut s = lock(&self.0)?;
        let end = s.committed + s.buf.len() as u64;
        let here = s.committed + s.pos as u64;
        let target = match to {
            SeekFrom::Start(p) => Some(p),
            SeekFrom::End(d) => end.checked_add_signed(d),
            SeekFrom::Current(d) => here.checked_add_signed(d),
        };
        match target {
            Some(t) if (s.committed..=end).contains(&t) => {
                s.pos = (t - s.committed) as usize;
                Ok(t)
            }
            _ => Err(io::Error::new(
                io::ErrorKind::Unsupported,
                format!("seek to {to:?} leaves the unwritten part of the bag ({}..={end})", s.committed),
            )),
        }
    }
}

/// An MCAP file (profile `ros2`, no compression) that is readable at every moment.
pub(crate) struct McapFile<S: Storage = File> {
    writer: mcap::Writer<Sink>,
    staging: Arc<Mutex<Staging>>,
    storage: S,
    path: PathBuf,
    /// Payload of the padding record at `committed`, bytes.
    pad: u64,
    /// Least growth of the padding, bytes ([`GROW`]; less in tests).
    grow: u64,
    /// Where the provisional end starts (none before the first commit), bytes.
    end: Option<u64>,
}

impl McapFile<File> {
    /// Creates (truncates) the file and commits its header, so that even an empty
    /// recording is a valid MCAP file.
    pub fn create(path: &Path) -> io::Result<Self> {
        McapFile::with_storage(File::create(path)?, path, GROW)
    }
}

impl<S: Storage> McapFile<S> {
    fn with_storage(storage: S, path: &Path, grow: u64) -> io::Result<Self> {
        let staging = Arc::new(Mutex::new(Staging::default()));
        let writer = mcap::WriteOptions::new()
            .profile("ros2")
            .library(concat!("flotilla ", env!("CARGO_PKG_VERSION")))
            .compression(None)
            // The data section also holds padding records the writer does not see.
            .calculate_data_section_crc(false)
            .create(Sink(Arc::clone(&staging)))
            .map_err(to_io)?;
        let mut out = Self { writer, staging, storage, path: path.to_owned(), pad: 0, grow, end: None };
        out.commit()?;
        Ok(out)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Adds a `ros2msg` schema (once per type) and a `cdr` channel with `metadata`.
    pub fn add_channel(&mut self, topic: &str, type_name: &str, definition: &str, metadata: &BTreeMap<String, String>) -> io::Result<u16> {
        let schema = self.writer.add_schema(type_name, "ros2msg", definition.as_bytes()).map_err(to_io)?;
        self.writer.add_channel(schema, topic, "cdr", metadata).map_err(to_io)
    }

    /// Buffers one message.
    pub fn write(&mut self, channel: u16, sequence: u32, time_ns: u64, data: &[u8]) -> io::Result<()> {
        let header = mcap::records::MessageHeader { channel_id: channel, sequence, log_time: time_ns, publish_time: time_ns };
        self.writer.write_to_known_channel(&header, data).map_err(to_io)
    }

    /// Buffers a Metadata record.
    pub fn write_metadata(&mut self, name: &str, metadata: BTreeMap<String, String>) -> io::Result<()> {
        self.writer.write_metadata(&mcap::records::Metadata { name: name.to_owned(), metadata }).map_err(to_io)
    }

    /// Closes the open chunk and commits everything buffered: a crash after this loses
    /// nothing written before it.
    pub fn flush(&mut self) -> io::Result<()> {
        self.writer.flush().map_err(to_io)?;
        self.commit()
    }

    /// Writes the summary, footer and magic over the padding and cuts the file after them.
    pub fn finish(mut self) -> io::Result<()> {
        self.writer.finish().map_err(to_io)?;
        let mut s = lock(&self.staging)?;
        let at = s.committed;
        let tail = std::mem::take(&mut s.buf);
        self.storage.write_at(&tail, at)?;
        self.storage.set_len(at + tail.len() as u64)
    }

    /// Puts the buffered records where the padding starts (see the module comment).
    fn commit(&mut self) -> io::Result<()> {
        let staging = Arc::clone(&self.staging);
        let mut s = lock(&staging)?;
        if s.buf.is_empty() {
            return Ok(());
        }
        if (s.buf.len() as u64) < HEADER {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "the MCAP writer buffered less than one record"));
        }
        let at = s.committed;
        let mut bytes = std::mem::take(&mut s.buf);
        s.pos = 0;
        let mut end = at + bytes.len() as u64;
        if end % PAGE > PAGE - HEADER {
            // The next padding header would cross a page boundary, where a kill can cut
            // its rewrite in two: a filler record moves it to a page boundary.
            let next = (end / PAGE + 2) * PAGE;
            let filler = next - end - HEADER;
            bytes.extend_from_slice(&pad_header(filler));
            bytes.resize(bytes.len() + filler as usize, 0);
            end = next;
        }
        if end - at > self.pad {
            self.grow(at, end - at)?;
        }
        let pad = at + self.pad - end;
        let mut rest = bytes[HEADER as usize..].to_vec();
        rest.extend_from_slice(&pad_header(pad));
        self.storage.write_at(&rest, at + HEADER)?;
        self.storage.write_at(&bytes[..HEADER as usize], at)?;
        s.committed = end;
        self.pad = pad;
        Ok(())
    }

    /// Makes the padding at `at` hold at least `need` bytes and a padding header more,
    /// plus a quarter of the file (at least the least growth).
    fn grow(&mut self, at: u64, need: u64) -> io::Result<()> {
        let more = self.grow.max(at / 4);
        let file_end = (at + HEADER + need + more + END_LEN).div_ceil(PAGE) * PAGE;
        let pad = file_end - END_LEN - at - HEADER;
        let new_end = file_end - END_LEN;
        // Until the old end is inside the padding, the new Footer sends readers that scan
        // up to the summary start to the old Footer (see the module comment).
        let mut end = PROVISIONAL_END;
        let summary_start = (SUMMARY_START_AT as usize)..(SUMMARY_START_AT as usize + 8);
        if let Some(old_end) = self.end {
            end[summary_start.clone()].copy_from_slice(&(old_end + FOOTER_AT).to_le_bytes());
        }
        self.storage.write_at(&end, new_end)?;
        self.storage.write_at(&pad_header(pad), at)?;
        if self.end.is_some() {
            self.storage.write_at(&PROVISIONAL_END[summary_start], new_end + SUMMARY_START_AT)?;
        }
        self.end = Some(new_end);
        self.pad = pad;
        Ok(())
    }

    #[cfg(test)]
    fn storage(&self) -> &S {
        &self.storage
    }
}

fn to_io(e: mcap::McapError) -> io::Error {
    match e {
        mcap::McapError::Io(e) => e,
        other => io::Error::other(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every message of `bytes`, and whether the stream ended cleanly.
    fn messages(bytes: &[u8]) -> (Vec<Vec<u8>>, bool) {
        let mut out = Vec::new();
        let Ok(stream) = mcap::MessageStream::new(bytes) else { return (out, false) };
        for m in stream {
            match m {
                Ok(m) => out.push(m.data.into_owned()),
                Err(_) => return (out, false),
            }
        }
        (out, true)
    }

    /// A file in memory that logs every write.
    #[derive(Default)]
    struct Recorder {
        image: Vec<u8>,
        ops: Vec<(u64, Vec<u8>)>,
    }

    impl Storage for Recorder {
        fn write_at(&mut self, data: &[u8], offset: u64) -> io::Result<()> {
            apply(&mut self.image, data, offset);
            self.ops.push((offset, data.to_vec()));
            Ok(())
        }

        fn set_len(&mut self, len: u64) -> io::Result<()> {
            self.image.resize(len as usize, 0);
            Ok(())
        }
    }

    fn apply(image: &mut Vec<u8>, data: &[u8], offset: u64) {
        let end = offset as usize + data.len();
        if image.len() < end {
            image.resize(end, 0);
        }
        image[offset as usize..end].copy_from_slice(data);
    }

    fn u64_at(bytes: &[u8], at: usize) -> u64 {
        u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap())
    }

    /// Message records in `records` (chunks opened, uncompressed); a record whose length
    /// runs past `file_len` (`offset`: where `records` starts in the file) is an error.
    fn count_messages(records: &[u8], offset: usize, file_len: usize) -> Result<usize, String> {
        let (mut pos, mut count) = (0, 0);
        while pos < records.len() {
            let len = u64_at(records, pos + 1);
            if (offset + pos) as u64 + HEADER + len > file_len as u64 {
                return Err(format!("record 0x{:02x} at {} of length {len} runs past the file", records[pos], offset + pos));
            }
            let body = &records[pos + HEADER as usize..pos + HEADER as usize + len as usize];
            match records[pos] {
                0x05 => count += 1,
                0x06 => {
                    // start, end, uncompressed size, crc, compression (string), records length.
                    let compression = u32::from_le_bytes(body[28..32].try_into().unwrap()) as usize;
                    let at = 32 + compression + 8;
                    let inner = &body[at..at + u64_at(body, at - 8) as usize];
                    count += count_messages(inner, 0, usize::MAX)?;
                }
                _ => {}
            }
            pos += HEADER as usize + len as usize;
        }
        Ok(count)
    }

    /// How rosbags opens a file without a summary: the Footer's summary start, if any,
    /// bounds the data section it scans (it reads summary records from there up to a
    /// Footer), every record there has to fit in the file. The messages it finds.
    fn rosbags_scan(bytes: &[u8]) -> Result<usize, String> {
        let n = bytes.len();
        let footer_start = n - 37;
        let data_start = MAGIC.len() + HEADER as usize + u64_at(bytes, MAGIC.len() + 1) as usize;
        let summary_start = u64_at(bytes, footer_start + HEADER as usize) as usize;
        let data_end = if summary_start == 0 {
            footer_start
        } else {
            if !(data_start..=footer_start).contains(&summary_start) {
                return Err(format!("summary start {summary_start} outside {data_start}..={footer_start}"));
            }
            let mut pos = summary_start;
            while ![0x02, 0x0E].contains(&bytes[pos]) {
                pos += HEADER as usize + u64_at(bytes, pos + 1) as usize;
                if pos >= n {
                    return Err(format!("summary records from {summary_start} run past the file"));
                }
            }
            summary_start
        };
        // The last record may run past `data_end` (a padding stretched over the old end):
        // the scan then stops.
        let mut pos = data_start;
        while pos < data_end {
            let len = u64_at(bytes, pos + 1);
            if pos as u64 + HEADER + len > n as u64 {
                return Err(format!("record 0x{:02x} at {pos} of length {len} runs past the file", bytes[pos]));
            }
            pos += HEADER as usize + len as usize;
        }
        count_messages(&bytes[data_start..pos.min(n)], data_start, n)
    }

    /// What a reader needs to open the file: the footer and magic at the end.
    fn has_footer(bytes: &[u8]) -> bool {
        let n = bytes.len();
        n >= 37 && bytes.ends_with(MAGIC) && bytes[n - 37] == 0x02 && bytes[n - 36..n - 28] == 20u64.to_le_bytes()
    }

    #[test]
    fn provisional_end_is_data_end_footer_and_magic() {
        let bytes = PROVISIONAL_END;
        assert_eq!((bytes[0], u64::from_le_bytes(bytes[1..9].try_into().unwrap())), (0x0F, 4));
        assert_eq!((bytes[13], u64::from_le_bytes(bytes[14..22].try_into().unwrap())), (0x02, 20));
        assert_eq!(&bytes[42..], MAGIC);
        assert!(bytes[9..13].iter().chain(&bytes[22..42]).all(|&b| b == 0));
        assert!(has_footer(&bytes));
    }

    /// A kill at any moment: after any write, or inside any write at any page boundary,
    /// the file opens (footer and magic at its end), reads without error, and holds every
    /// message committed before that write began.
    #[test]
    fn a_kill_inside_any_write_leaves_a_readable_file_with_every_committed_message() {
        let mut file = McapFile::with_storage(Recorder::default(), Path::new("mem.mcap"), 4 * PAGE).unwrap();
        let ch = file.add_channel("/a", "pkg/msg/A", "uint8[] x", &BTreeMap::new()).unwrap();
        let mut written = Vec::new();
        // (ops before the commit, messages committed by then)
        let mut commits = vec![(file.storage().ops.len(), 0usize)];
        let committed = |f: &McapFile<Recorder>| f.staging.lock().unwrap().committed;
        // Bytes a one-message commit adds besides the message data (chunk and index records).
        let mut overhead = None;
        for i in 0..120u32 {
            // Sizes that use up the padding repeatedly (growth), and every tenth one chosen
            // to end the records in the last bytes of a page (a filler).
            let at = committed(&file);
            let size = match overhead {
                Some(overhead) if i % 10 == 5 => (PAGE - 1 - u64::from(i / 10 % 8) - (at + overhead) % PAGE + PAGE) as usize,
                _ => 300 + (i as usize * 97) % 3000,
            };
            let data = vec![(i % 251) as u8; size];
            file.write(ch, i + 1, u64::from(i), &data).unwrap();
            written.push(data);
            let before = file.storage().ops.len();
            file.flush().unwrap();
            let grew = committed(&file) - at - size as u64;
            if i > 0 && grew < PAGE {
                overhead = Some(grew);
            }
            commits.push((before, written.len() - 1));
            commits.push((file.storage().ops.len(), written.len()));
        }
        let ops = &file.storage().ops;
        let committed_before = |op: usize| commits.iter().filter(|&&(at, _)| at <= op).map(|&(_, n)| n).max().unwrap_or(0);
        let first = commits[0].0;
        let mut image = Vec::new();
        let (mut checked, mut grown) = (0, 0);
        for (k, (offset, data)) in ops.iter().enumerate() {
            if k >= first {
                // Torn at every page boundary inside the write, and not torn.
                let mut cut = (PAGE - offset % PAGE) as usize;
                let mut cuts = Vec::new();
                while cut < data.len() {
                    cuts.push(cut);
                    cut += PAGE as usize;
                }
                cuts.push(data.len());
                for cut in cuts {
                    let mut torn = image.clone();
                    apply(&mut torn, &data[..cut], *offset);
                    assert!(has_footer(&torn), "op {k} cut at {cut}: no footer");
                    let (got, clean) = messages(&torn);
                    assert!(clean, "op {k} cut at {cut}: read error after {} messages", got.len());
                    let need = if cut == data.len() { committed_before(k + 1) } else { committed_before(k) };
                    assert!(got.len() >= need, "op {k} cut at {cut}: {} of {need} committed messages", got.len());
                    assert_eq!(got[..], written[..got.len()], "op {k} cut at {cut}");
                    let scanned = rosbags_scan(&torn).unwrap_or_else(|e| panic!("op {k} cut at {cut}: as rosbags: {e}"));
                    assert!(scanned >= need, "op {k} cut at {cut}: as rosbags, {scanned} of {need} committed messages");
                    let summary = mcap::Summary::read(&torn).unwrap_or_else(|e| panic!("op {k} cut at {cut}: summary: {e}"));
                    assert!(summary.is_none_or(|s| s.stats.is_none() && s.chunk_indexes.is_empty()), "op {k} cut at {cut}: a summary");
                    checked += 1;
                }
            }
            if data.len() == END_LEN as usize && data[..SUMMARY_START_AT as usize] == PROVISIONAL_END[..SUMMARY_START_AT as usize] {
                grown += 1;
            }
            apply(&mut image, data, *offset);
        }
        // Padding records in the data section: the fillers and the padding before the end.
        let (mut pos, mut pads) = (MAGIC.len(), 0);
        while image[pos] != 0x0F {
            pads += usize::from(image[pos] == PAD_OPCODE);
            pos += HEADER as usize + u64::from_le_bytes(image[pos + 1..pos + 9].try_into().unwrap()) as usize;
        }
        eprintln!("{checked} file states checked; the padding grew {grown} times; {} fillers", pads - 1);
        assert!(grown >= 5 && pads > 10 && checked > 300);
        file.finish().unwrap();
    }

    #[test]
    fn a_finished_file_has_its_summary_and_no_padding_at_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.mcap");
        let mut file = McapFile::create(&path).unwrap();
        let empty = std::fs::read(&path).unwrap();
        assert!(empty.starts_with(MAGIC) && has_footer(&empty));
        assert_eq!(empty.len() as u64 % PAGE, 0, "the provisional end closes a page");
        assert_eq!(messages(&empty), (vec![], true));

        let qos = BTreeMap::from([("k".to_owned(), "v".to_owned())]);
        let ch = file.add_channel("/a", "pkg/msg/A", "int32 x", &qos).unwrap();
        for i in 1..=5u8 {
            file.write(ch, u32::from(i), u64::from(i) * 10, &[i; 3]).unwrap();
            file.flush().unwrap();
            let bytes = std::fs::read(&path).unwrap();
            assert_eq!(messages(&bytes).0.len(), usize::from(i));
            assert!(mcap::Summary::read(&bytes).unwrap().is_none(), "no summary before finish");
        }
        file.write_metadata("rosbag2", BTreeMap::from([("serialized_metadata".to_owned(), "version: 9".to_owned())])).unwrap();
        file.finish().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert!(bytes.len() < 4096, "cut after the footer: {} bytes", bytes.len());
        assert_eq!(messages(&bytes), ((1..=5u8).map(|i| vec![i; 3]).collect(), true));
        let summary = mcap::Summary::read(&bytes).unwrap().expect("a finished file has a summary");
        assert_eq!(summary.stats.unwrap().message_count, 5);
        assert_eq!(summary.metadata_indexes.len(), 1);
        assert_eq!(summary.channels.values().next().unwrap().metadata, qos);
    }

    #[test]
    fn the_sink_refuses_to_seek_into_committed_bytes() {
        let staging = Arc::new(Mutex::new(Staging { committed: 100, ..Default::default() }));
        let mut sink = Sink(Arc::clone(&staging));
        sink.write_all(b"abcdef").unwrap();
        assert_eq!(sink.stream_position().unwrap(), 106);
        assert_eq!(sink.seek(SeekFrom::Start(102)).unwrap(), 102);
        sink.write_all(b"XY").unwrap();
        assert_eq!(sink.seek(SeekFrom::End(0)).unwrap(), 106);
        sink.write_all(b"g").unwrap();
        assert_eq!(staging.lock().unwrap().buf, b"abXYefg");
        assert!(sink.seek(SeekFrom::Start(99)).is_err());
        assert!(sink.seek(SeekFrom::Current(5)).is_err());
    }
}
