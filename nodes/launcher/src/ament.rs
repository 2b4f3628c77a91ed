//! Package lookup through `AMENT_PREFIX_PATH`, as ament_index does it: a prefix holds package
//! `p` when `<prefix>/share/ament_index/resource_index/packages/p` exists; the first such
//! prefix wins. Executables live in `<prefix>/lib/p/`, data in `<prefix>/share/p`.

use std::path::{Path, PathBuf};

use crate::env::LaunchEnv;
use crate::error::LaunchError;
use crate::location::Loc;

/// The install prefixes to search, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AmentIndex {
    /// Prefixes from `AMENT_PREFIX_PATH`, first has priority.
    pub prefixes: Vec<PathBuf>,
}

impl AmentIndex {
    /// The prefixes listed in `AMENT_PREFIX_PATH` (`:`-separated; empty entries skipped).
    pub fn from_env(env: &LaunchEnv) -> Self {
        let prefixes = env.var("AMENT_PREFIX_PATH").unwrap_or_default().split(':').filter(|p| !p.is_empty()).map(PathBuf::from).collect();
        Self { prefixes }
    }

    /// The prefix holding `package`; `loc` is where it was asked for.
    pub fn package_prefix(&self, package: &str, loc: &Loc) -> Result<&Path, LaunchError> {
        let valid_name = !package.is_empty() && !package.contains(['/', '\0']) && package != "." && package != "..";
        let found = valid_name
            .then(|| self.prefixes.iter().find(|prefix| prefix.join("share/ament_index/resource_index/packages").join(package).is_file()))
            .flatten();
        found.map(PathBuf::as_path).ok_or_else(|| LaunchError::PackageNotFound {
            package: package.to_owned(),
            searched: self.prefixes.clone(),
            loc: loc.clone(),
        })
    }

    /// `<prefix>/share/<package>`.
    pub fn package_share(&self, package: &str, loc: &Loc) -> Result<PathBuf, LaunchError> {
        Ok(self.package_prefix(package, loc)?.join("share").join(package))
    }

    /// `<prefix>/lib/<package>/<executable>`, which must be an executable file.
    pub fn executable(&self, package: &str, executable: &str, loc: &Loc) -> Result<PathBuf, LaunchError> {
        let dir = self.package_prefix(package, loc)?.join("lib").join(package);
        let path = dir.join(executable);
        if !executable.contains('/') && is_executable_file(&path) {
            Ok(path)
        } else {
            Err(LaunchError::ExecutableNotFound { package: package.to_owned(), executable: executable.to_owned(), dir, loc: loc.clone() })
        }
    }
}

/// A regular file with an execute bit.
pub fn is_executable_file(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
pub(crate) mod tests {
    use std::sync::Arc;

    use super::*;

    pub(crate) fn fake_package(prefix: &Path, package: &str, executables: &[&str]) {
        let marker = prefix.join("share/ament_index/resource_index/packages");
        std::fs::create_dir_all(&marker).unwrap();
        std::fs::write(marker.join(package), "").unwrap();
        let lib = prefix.join("lib").join(package);
        std::fs::create_dir_all(&lib).unwrap();
        for exe in executables {
            std::fs::write(lib.join(exe), "#!/bin/sh\n").unwrap();
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(lib.join(exe), std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }

    fn loc() -> Loc {
        Loc::new(Arc::from(Path::new("x.launch.yaml")), 4, 3)
    }

    #[test]
    fn first_prefix_holding_the_package_wins() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        fake_package(b.path(), "flotilla", &["tracker"]);
        fake_package(a.path(), "other", &[]);
        let env = LaunchEnv::new("/").with_var("AMENT_PREFIX_PATH", format!("{}::{}", a.path().display(), b.path().display()));
        let index = AmentIndex::from_env(&env);
        assert_eq!(index.prefixes.len(), 2);
        assert_eq!(index.package_prefix("flotilla", &loc()).unwrap(), b.path());
        assert_eq!(index.package_share("flotilla", &loc()).unwrap(), b.path().join("share/flotilla"));
        assert_eq!(index.executable("flotilla", "tracker", &loc()).unwrap(), b.path().join("lib/flotilla/tracker"));
    }

    #[test]
    fn missing_package_names_the_prefixes() {
        let a = tempfile::tempdir().unwrap();
        let index = AmentIndex { prefixes: vec![a.path().to_owned()] };
        let err = index.package_prefix("nope", &loc()).unwrap_err().to_string();
        assert!(err.starts_with("x.launch.yaml:4:3: package 'nope' not found"), "{err}");
        assert!(err.contains(&a.path().display().to_string()), "{err}");
        let empty = AmentIndex::default().package_prefix("nope", &loc()).unwrap_err().to_string();
        assert!(empty.contains("AMENT_PREFIX_PATH is empty"), "{empty}");
    }

    #[test]
    fn missing_or_non_executable_executable() {
        let a = tempfile::tempdir().unwrap();
        fake_package(a.path(), "p", &["run"]);
        std::fs::write(a.path().join("lib/p/data"), "").unwrap();
        let index = AmentIndex { prefixes: vec![a.path().to_owned()] };
        for exe in ["nope", "data", "../p/run"] {
            let err = index.executable("p", exe, &loc()).unwrap_err().to_string();
            assert!(err.contains(&format!("executable '{exe}' not found")), "{err}");
        }
    }
}
