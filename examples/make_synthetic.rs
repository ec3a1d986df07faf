//! Writes a synthetic dataset as a CSV with the label in the last column, for `dpref run`:
//! * `absreg` (default): the \[ADFJT\] §6.1 absolute regression (n = 5000, d = 100,
//!   σⱼ = j^{−3/2}, τ = 0.01);
//! * `l1`: the least-squares problem on an l1 ball of `dpref::data::l1_problems` (n = 2000,
//!   d = 8 Rademacher features, x_true = (0.5, −0.3, 0, 0, 0.1, 0, 0, 0), labels ± U[−0.2, 0.2]);
//! * `sparse`: a bag of words as LIBSVM for the \[GGKKM\] runs (n = 2000, d = 200, 4 distinct words
//!   per document with Zipf frequencies, binary features: rows of 4 non-zeros and l2 norm 2;
//!   logistic labels in {0, 1}).
//!
//! ```sh
//! cargo run --release --example make_synthetic -- /tmp/absreg.csv
//! dpref run pagan --data /tmp/absreg.csv --loss absolute --epsilon 1 --delta 1e-5 ...
//! cargo run --release --example make_synthetic -- /tmp/l1.csv l1
//! cargo run --release --example make_synthetic -- /tmp/bow.svm sparse
//! ```

use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).unwrap_or_else(|| "absreg.csv".into());
    let kind = std::env::args().nth(2).unwrap_or_else(|| "absreg".into());
    let mut rng = dpref::rng::Seeds::new(1).stream(dpref::rng::Stream::Data);
    if kind == "sparse" {
        let bow = dpref::data::sparse::bag_of_words(2000, 200, 4, 1.0, 10..20, 2.0, &mut rng)?;
        let mut out = std::io::BufWriter::new(std::fs::File::create(&path)?);
        for i in 0..bow.data.n() {
            let (idx, val) = bow.data.row(i);
            let entries: Vec<String> = idx.iter().zip(val).map(|(j, v)| format!("{}:{v}", j + 1)).collect();
            writeln!(out, "{} {}", bow.data.label(i), entries.join(" "))?;
        }
        eprintln!("wrote {} documents over {} words to {path}", bow.data.n(), bow.data.d());
        return Ok(());
    }
    let data = match kind.as_str() {
        "absreg" => dpref::data::absolute_regression(5000, 100, 0.01, &mut rng)?.0,
        "l1" => {
            let x_true = vec![0.5, -0.3, 0.0, 0.0, 0.1, 0.0, 0.0, 0.0];
            dpref::data::l1_problems::LeastSquaresL1::generate(2000, x_true, 0.2, &mut rng)?.data
        }
        other => return Err(format!("unknown dataset '{other}': absreg, l1 or sparse").into()),
    };
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path)?);
    for i in 0..data.n() {
        let row: Vec<String> = data.row(i).iter().map(|v| format!("{v:e}")).collect();
        writeln!(out, "{},{:e}", row.join(","), data.label(i))?;
    }
    eprintln!("wrote {} examples with {} features to {path}", data.n(), data.d());
    Ok(())
}
