//! Writes the [ADFJT] §6.1 synthetic absolute regression (n = 5000, d = 100, σⱼ = j^{−3/2},
//! τ = 0.01) as a CSV with the label in the last column, for `dpref run`:
//!
//! ```sh
//! cargo run --release --example make_synthetic -- /tmp/absreg.csv
//! dpref run pagan --data /tmp/absreg.csv --loss absolute --epsilon 1 --delta 1e-5 ...
//! ```

use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).unwrap_or_else(|| "absreg.csv".into());
    let mut rng = dpref::rng::Seeds::new(1).stream(dpref::rng::Stream::Data);
    let (data, _x_star) = dpref::data::absolute_regression(5000, 100, 0.01, &mut rng)?;
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path)?);
    for i in 0..data.n() {
        let row: Vec<String> = data.row(i).iter().map(|v| format!("{v:e}")).collect();
        writeln!(out, "{},{:e}", row.join(","), data.label(i))?;
    }
    eprintln!("wrote {} examples with {} features to {path}", data.n(), data.d());
    Ok(())
}
