//! The search examples' command line: positional numbers, each with a default.

/// The command line's arguments as numbers. An argument that is not a number ends the
/// program with exit code 2 and a message naming it, rather than being skipped (which
/// would shift every later argument into the wrong parameter).
pub fn numbers() -> Vec<f64> {
    let mut numbers = Vec::new();
    for (index, arg) in std::env::args().skip(1).enumerate() {
        match arg.parse() {
            Ok(value) => numbers.push(value),
            Err(_) => {
                eprintln!(
                    "argument {} is {arg:?}, not a number (every argument is a number; see the doc comment at the top of the example)",
                    index + 1
                );
                std::process::exit(2);
            }
        }
    }
    numbers
}
