//! Searches the follow down after the down turn (`flotilla_firmware::molemod::follow_down::
//! search`): from `DOWN_TURN_PATH`'s end, the upper head out of A over B's top into B's
//! column and turned into B's crossing, the lower head out into C. Prints the 1 ms walk of
//! the rows found and of the table rounded to 1 um and 0.01 mrad, and the table.
//! `cargo run --release -p flotilla_firmware --no-default-features --example molemod_follow_down_search`

use flotilla_firmware::molemod::follow_down::{down_turn_end, search, stored, walk};

fn main() {
    let t = std::time::Instant::now();
    let rows = match search() {
        Ok(r) => r,
        Err(e) => return println!("{e} ({:.1} s)", t.elapsed().as_secs_f64()),
    };
    println!("{} rows ({:.1} s)", rows.len(), t.elapsed().as_secs_f64());
    let (_, lower, _) = down_turn_end();
    println!("walk: {:?}", walk(&lower, &rows));
    let table = stored(&rows);
    println!("rounded walk: {:?}", walk(&lower, &table));
    println!("table ({} rows):", table.len());
    for (base, r) in &table {
        println!(
            "    {}",
            format!("(Base::{base:?}, [{:.6}, {:.5}, {:.6}, {:.6}, {:.5}, {:.6}]),", r[0], r[1], r[2], r[3], r[4], r[5])
                .replace("-0.0000,", "0.0000,")
        );
    }
}
