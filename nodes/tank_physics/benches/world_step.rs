//! World stepping benchmark (filled in below).
fn main() {}
