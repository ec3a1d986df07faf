//! Small generated datasets for the CLI tests and their library twins.

/// 400 records of 3 standard normal features, label 1 iff x1 + x2 > 0, as CSV with a header
/// (seed 3, data stream).
pub fn logistic_csv() -> String {
    let mut rng = dpref::rng::Seeds::new(3).stream(dpref::rng::Stream::Data);
    let mut s = String::from("x1,x2,x3,label\n");
    for _ in 0..400 {
        let x: Vec<f64> = (0..3).map(|_| dpref::noise::standard_normal(&mut rng)).collect();
        let y = if x[0] + x[1] > 0.0 { 1 } else { 0 };
        s += &format!("{},{},{},{y}\n", x[0], x[1], x[2]);
    }
    s
}

/// A fresh directory `dpref-<tag>-<pid>` under the system's temporary directory, removed on drop.
pub struct TempDir(pub std::path::PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> Self {
        let d = std::env::temp_dir().join(format!("dpref-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        TempDir(d)
    }

    /// Writes `bytes` to `name` in the directory and returns its path.
    pub fn file(&self, name: &str, bytes: impl AsRef<[u8]>) -> String {
        let p = self.0.join(name);
        std::fs::write(&p, bytes).unwrap();
        p.to_str().unwrap().to_string()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.0).ok();
    }
}

/// Asserts that `dpref args` exits with status 2 and a single `error: ` line on stderr (the CLI's
/// contract for bad input).
pub fn assert_usage_error(args: &[&str]) {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_dpref")).args(args).output().expect("binary runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.starts_with("error: ") && err.trim_end().lines().count() == 1, "{args:?}: {err}");
}
