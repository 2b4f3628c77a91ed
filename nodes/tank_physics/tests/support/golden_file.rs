//! Golden files of the physics tests: `tests/golden/NAME` at the repository root, recorded
//! again with `FLOTILLA_BLESS=1`.

use std::path::PathBuf;

/// The recorded text of golden file `name`; `None` once `actual` has been recorded in its
/// place (`FLOTILLA_BLESS` set).
pub fn expected(name: &str, actual: &str) -> Option<String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden").join(name);
    if std::env::var_os("FLOTILLA_BLESS").is_some() {
        std::fs::write(&path, actual).unwrap();
        return None;
    }
    Some(std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e} (FLOTILLA_BLESS=1 records it)", path.display())))
}
