//! The links between code, proofs and tests (STYLE b.14, proofs/README.md):
//!
//! 1. every `proofs/….md` path mentioned in a file under `src/` exists;
//! 2. every test name listed in a proof's "Checked by" section is a `fn` under `tests/` or `src/`,
//!    and every proof file has such a section;
//! 3. every `// Alg. N, line K` step comment in `src/` has a row `| Alg. N, line K | …` in a
//!    proof file that the same source file cites;
//! 4. every `proofs/**/*.md` file is cited from `src/` or listed in `proofs/README.md`;
//! 5. every algorithm file under `src/optim/` cites a proof;
//! 6. every line-table row `| Alg. N, line K | … |` of a proof has a last "checked by" cell that
//!    names at least one test, each a `fn` under `tests/` or `src/`;
//! 7. no file under `src/` or `proofs/` leans on documents outside the repository: no mention of
//!    the engineering notes (`notes/…`, `notes §2.6`, "the notes", `notes E2`) and no paper file
//!    name (`002_275032540c8a1df4.txt`); papers are cited by their own section, equation and
//!    algorithm numbers, with the bibliography in `proofs/README.md`.
//!
//! The checkers are plain functions over file contents, so the last tests run them on synthetic
//! inputs and show that each one fails when a link is broken (a check that cannot fail proves
//! nothing; DESIGN "Testing conventions").

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The crate root.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// All files under `dir` (recursively) whose name ends with `ext`, as (path relative to the crate
/// root with `/` separators, contents), sorted by path. A missing directory gives no files.
fn files_under(dir: &str, ext: &str) -> Vec<(String, String)> {
    fn walk(base: &Path, dir: &Path, ext: &str, out: &mut Vec<(String, String)>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries {
            let path = entry.expect("readable directory entry").path();
            if path.is_dir() {
                walk(base, &path, ext, out);
            } else if path.to_string_lossy().ends_with(ext) {
                let rel = path.strip_prefix(base).expect("under the crate root");
                let rel: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
                let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                out.push((rel.join("/"), text));
            }
        }
    }
    let base = root();
    let mut out = Vec::new();
    walk(&base, &base.join(dir), ext, &mut out);
    out.sort();
    out
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Every `proofs/<path>.md` mentioned in `text`, with its 1-based line number. A mention is
/// `proofs/` (not preceded by an identifier character) followed by path characters; it counts
/// only if it contains `.md`, and is cut just after the first `.md` (so a trailing `.` or `)` is
/// not part of it). Bare mentions of the directory (`proofs/`, `proofs/….md`) are ignored.
fn proof_paths(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (no, line) in text.lines().enumerate() {
        let mut from = 0;
        while let Some(pos) = line[from..].find("proofs/") {
            let start = from + pos;
            from = start + "proofs/".len();
            if line[..start].chars().next_back().is_some_and(is_ident_char) {
                continue;
            }
            let token: String =
                line[start..].chars().take_while(|&c| is_ident_char(c) || matches!(c, '/' | '.' | '-')).collect();
            if let Some(end) = token.find(".md") {
                out.push((no + 1, token[..end + 3].to_string()));
            }
        }
    }
    out
}

/// The lines of `md` outside fenced code blocks, with 1-based line numbers.
fn prose_lines(md: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (no, line) in md.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            out.push((no + 1, line));
        }
    }
    out
}

/// The test names of the "Checked by" section of a proof (`None` if there is no such section):
/// every backticked token made only of identifier characters between a heading containing
/// "Checked by" and the next heading of level 1 or 2.
fn checked_by_names(md: &str) -> Option<Vec<(usize, String)>> {
    let mut names = None;
    for (no, line) in prose_lines(md) {
        let heading = line.starts_with("# ") || line.starts_with("## ");
        if heading {
            if line.contains("Checked by") {
                names = Some(Vec::new());
                continue;
            } else if names.is_some() {
                break;
            }
        }
        if let Some(list) = names.as_mut() {
            for (i, chunk) in line.split('`').enumerate() {
                // odd chunks are inside backticks
                if i % 2 == 1 && !chunk.is_empty() && chunk.chars().all(is_ident_char) {
                    list.push((no, chunk.to_string()));
                }
            }
        }
    }
    names
}

/// Whether `text` defines `fn <name>` (followed by `(`, `<` or whitespace).
fn defines_fn(text: &str, name: &str) -> bool {
    let pat = format!("fn {name}");
    text.match_indices(&pat).any(|(i, _)| {
        let before_ok = !text[..i].chars().next_back().is_some_and(is_ident_char);
        let after = text[i + pat.len()..].chars().next();
        before_ok && matches!(after, Some('(' | '<' | ' ' | '\t' | '\n'))
    })
}

/// A step comment `// Alg. N, line K` found in a source file.
#[derive(Debug, Clone, PartialEq)]
struct StepComment {
    line_no: usize,
    alg: String,
    line: String,
}

/// Every `// Alg. N, line K` line comment of `src` (N and K are runs of letters, digits and `.`;
/// K ends at `:`, whitespace or `(`). Doc comments (`/// Alg. 2 …`, `//! …`) are not step
/// comments. A line comment that starts `// Alg.` but does not have this shape is returned as an
/// error (STYLE b.4 fixes the shape).
fn step_comments(src: &str) -> (Vec<StepComment>, Vec<String>) {
    let (mut ok, mut bad) = (Vec::new(), Vec::new());
    for (no, line) in src.lines().enumerate() {
        let found = line.match_indices("// Alg.").map(|(i, _)| i).find(|&i| !line[..i].ends_with('/'));
        let Some(pos) = found else { continue };
        let rest = line[pos + "// Alg.".len()..].trim_start();
        let alg: String = rest.chars().take_while(|&c| c.is_ascii_alphanumeric() || c == '.').collect();
        let alg = alg.trim_end_matches('.').to_string();
        let after = rest[alg.len()..].trim_start_matches('.');
        let parsed = after.strip_prefix(", line ").map(|r| {
            r.chars()
                .take_while(|&c| c.is_ascii_alphanumeric() || c == '.')
                .collect::<String>()
                .trim_end_matches('.')
                .to_string()
        });
        match parsed {
            Some(k) if !alg.is_empty() && !k.is_empty() => ok.push(StepComment { line_no: no + 1, alg, line: k }),
            _ => bad.push(format!("line {}: `{}` is not of the form `// Alg. N, line K: …`", no + 1, line.trim())),
        }
    }
    (ok, bad)
}

/// Whether `md` has a table row whose first cell reads `Alg. N, line K` (backticks and extra
/// spaces ignored).
fn has_line_row(md: &str, alg: &str, line: &str) -> bool {
    let want = format!("Alg. {alg}, line {line}");
    prose_lines(md).iter().any(|(_, l)| {
        let l = l.trim();
        l.starts_with('|')
            && l[1..].split('|').next().is_some_and(|cell| {
                let cell: String = cell.replace('`', "");
                cell.split_whitespace().collect::<Vec<_>>().join(" ") == want
            })
    })
}

/// Check 3 over a set of source files: for each step comment, one of the proofs the file cites
/// (read with `read_proof`, `None` if missing) has the row. Returns the problems.
fn missing_line_rows(sources: &[(String, String)], read_proof: impl Fn(&str) -> Option<String>) -> Vec<String> {
    let mut problems = Vec::new();
    for (path, src) in sources {
        let (steps, malformed) = step_comments(src);
        problems.extend(malformed.into_iter().map(|m| format!("{path}: {m}")));
        if steps.is_empty() {
            continue;
        }
        let cited: Vec<String> = proof_paths(src).into_iter().map(|(_, p)| p).collect();
        if cited.is_empty() {
            problems.push(format!(
                "{path}: has `// Alg. N, line K` step comments but its doc comment cites no `Proof: proofs/….md`"
            ));
            continue;
        }
        let proofs: Vec<Option<String>> = cited.iter().map(|p| read_proof(p)).collect();
        for s in steps {
            if !proofs.iter().any(|md| md.as_deref().is_some_and(|md| has_line_row(md, &s.alg, &s.line))) {
                problems.push(format!(
                    "{path}:{}: `// Alg. {}, line {}` has no row `| Alg. {}, line {} | … |` in {}",
                    s.line_no,
                    s.alg,
                    s.line,
                    s.alg,
                    s.line,
                    cited.join(" or ")
                ));
            }
        }
    }
    problems
}

/// The cells of a Markdown table row (`\\|` is an escaped pipe, kept inside its cell), trimmed.
fn table_cells(row: &str) -> Vec<String> {
    let row = row.trim().replace("\\|", "\u{1}");
    let inner = row.strip_prefix('|').unwrap_or(&row);
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    inner.split('|').map(|c| c.replace('\u{1}', "\\|").trim().to_string()).collect()
}

/// Whether a first cell reads `Alg. N, line K` (backticks and extra spaces ignored).
fn is_line_row_label(cell: &str) -> bool {
    let cell: String = cell.replace('`', "").split_whitespace().collect::<Vec<_>>().join(" ");
    cell.strip_prefix("Alg. ")
        .and_then(|r| r.split_once(", line "))
        .is_some_and(|(n, k)| !n.is_empty() && !k.is_empty() && !n.contains(' ') && !k.contains(' '))
}

/// Check 6 over one proof: every `Alg. N, line K` row of a table must have as many cells as the
/// table's header, the header's last cell must read "checked by", and the row's last cell must
/// name (in backticks) at least one test, each accepted by `is_fn`. Returns the problems.
fn line_rows_without_tests(path: &str, md: &str, is_fn: impl Fn(&str) -> bool) -> Vec<String> {
    let mut problems = Vec::new();
    let mut header: Option<Vec<String>> = None;
    for (no, line) in prose_lines(md) {
        let l = line.trim();
        if !l.starts_with('|') {
            header = None;
            continue;
        }
        let cells = table_cells(l);
        let Some(head) = header.as_ref() else {
            header = Some(cells);
            continue;
        };
        if !cells.first().is_some_and(|c| is_line_row_label(c)) {
            continue;
        }
        let has_column = head.last().is_some_and(|h| h.eq_ignore_ascii_case("checked by"));
        if !has_column {
            problems.push(format!("{path}:{no}: the line table has no last column \"checked by\""));
            continue;
        }
        if cells.len() != head.len() {
            problems.push(format!("{path}:{no}: {} cells where the header has {}", cells.len(), head.len()));
            continue;
        }
        let cell = cells.last().expect("at least one cell");
        let names: Vec<&str> = cell
            .split('`')
            .enumerate()
            .filter(|(i, c)| i % 2 == 1 && !c.is_empty() && c.chars().all(is_ident_char))
            .map(|(_, c)| c)
            .collect();
        if names.is_empty() {
            problems.push(format!("{path}:{no}: `{}` names no test in its \"checked by\" cell", cells[0]));
        }
        for name in names {
            if !is_fn(name) {
                problems.push(format!("{path}:{no}: `{name}` (checked by) is not a `fn` under tests/ or src/"));
            }
        }
    }
    problems
}

/// Check 7 over one text: every line that mentions the engineering notes kept outside the
/// repository (`notes/`, `notes §`, `notes'`, "the notes", `notes` followed by a property label
/// such as `E2` or `P9`, `notes erratum`) or a paper file name (`ddd_` + 16 hex digits + `.txt`),
/// as `(1-based line, the line)`. Plain English uses of "notes" ("two notes:") pass.
fn external_references(text: &str) -> Vec<(usize, String)> {
    fn cites_notes(line: &str) -> bool {
        let lower = line.to_lowercase();
        if lower.contains("the notes") || lower.contains("notes/") || lower.contains("notes'") {
            return true;
        }
        lower.match_indices("notes ").any(|(i, _)| {
            let rest = &line[i + "notes ".len()..];
            let mut chars = rest.chars();
            let (a, b) = (chars.next(), chars.next());
            rest.starts_with('§')
                || rest.starts_with("erratum")
                || matches!((a, b), (Some(a), Some(b)) if a.is_ascii_uppercase() && b.is_ascii_digit())
        })
    }
    fn names_a_paper_file(line: &str) -> bool {
        line.match_indices(".txt").any(|(i, _)| {
            let stem = &line.as_bytes()[..i];
            stem.len() >= 20 && {
                let name = &stem[stem.len() - 20..];
                name[..3].iter().all(u8::is_ascii_digit)
                    && name[3] == b'_'
                    && name[4..].iter().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
            }
        })
    }
    text.lines()
        .enumerate()
        .filter(|(_, line)| cites_notes(line) || names_a_paper_file(line))
        .map(|(i, line)| (i + 1, line.trim().to_string()))
        .collect()
}

fn read_repo_file(rel: &str) -> Option<String> {
    std::fs::read_to_string(root().join(rel)).ok()
}

fn assert_no_problems(what: &str, problems: &[String]) {
    assert!(problems.is_empty(), "{what}: {} problem(s):\n  {}", problems.len(), problems.join("\n  "));
}

#[test]
fn proofs_every_cited_file_exists() {
    let mut problems = Vec::new();
    let mut cited = 0;
    for (path, text) in files_under("src", ".rs") {
        for (no, proof) in proof_paths(&text) {
            cited += 1;
            if !root().join(&proof).is_file() {
                problems.push(format!("{path}:{no}: cites {proof}, which does not exist"));
            }
        }
    }
    assert_no_problems("proof paths cited in src/", &problems);
    assert!(cited > 0, "no `proofs/….md` citation found under src/: is the scan broken?");
}

#[test]
fn proofs_every_checked_by_name_is_a_test() {
    let mut code = files_under("tests", ".rs");
    code.extend(files_under("src", ".rs"));
    let mut problems = Vec::new();
    let proofs: Vec<(String, String)> =
        files_under("proofs", ".md").into_iter().filter(|(p, _)| p != "proofs/README.md").collect();
    assert!(!proofs.is_empty(), "no proof files under proofs/");
    for (path, md) in &proofs {
        match checked_by_names(md) {
            None => problems.push(format!("{path}: no \"Checked by\" section")),
            Some(names) if names.is_empty() => {
                problems.push(format!("{path}: the \"Checked by\" section names no test"))
            }
            Some(names) => {
                for (no, name) in names {
                    if !code.iter().any(|(_, text)| defines_fn(text, &name)) {
                        problems.push(format!("{path}:{no}: `{name}` is not a `fn` under tests/ or src/"));
                    }
                }
            }
        }
    }
    assert_no_problems("\"Checked by\" sections", &problems);
}

#[test]
fn proofs_every_alg_line_comment_has_a_table_row() {
    let problems = missing_line_rows(&files_under("src", ".rs"), read_repo_file);
    assert_no_problems("`// Alg. N, line K` step comments", &problems);
}

#[test]
fn proofs_every_line_row_names_its_test() {
    let mut code = files_under("tests", ".rs");
    code.extend(files_under("src", ".rs"));
    let is_fn = |name: &str| code.iter().any(|(_, text)| defines_fn(text, name));
    let mut problems = Vec::new();
    let mut rows = 0;
    for (path, md) in files_under("proofs", ".md") {
        if path == "proofs/README.md" {
            continue;
        }
        rows += prose_lines(&md)
            .iter()
            .filter(|(_, l)| l.trim().starts_with('|') && is_line_row_label(&table_cells(l)[0]))
            .count();
        problems.extend(line_rows_without_tests(&path, &md, is_fn));
    }
    assert_no_problems("\"checked by\" cells of the line tables", &problems);
    assert!(rows > 0, "no `Alg. N, line K` row found under proofs/: is the scan broken?");
}

#[test]
fn proofs_every_proof_file_is_referenced() {
    let src = files_under("src", ".rs");
    let readme = read_repo_file("proofs/README.md").expect("proofs/README.md exists");
    let mut problems = Vec::new();
    for (path, _) in files_under("proofs", ".md") {
        if path == "proofs/README.md" {
            continue;
        }
        let rel = path.strip_prefix("proofs/").expect("under proofs/");
        let from_src = src.iter().any(|(_, text)| proof_paths(text).iter().any(|(_, p)| *p == path));
        if !from_src && !readme.contains(rel) {
            problems.push(format!("{path} is cited neither from src/ nor in proofs/README.md"));
        }
    }
    assert_no_problems("orphan proof files", &problems);
}

#[test]
fn proofs_every_algorithm_file_cites_a_proof() {
    // STYLE b.1/b.14: each algorithm file `src/optim/<family>/<alg>.rs` (and its `_fast.rs`)
    // carries `Proof: proofs/<family>/<alg>.md`; module files (`mod.rs`) are exempt.
    let mut problems = Vec::new();
    for (path, text) in files_under("src/optim", ".rs") {
        if path.ends_with("/mod.rs") {
            continue;
        }
        if proof_paths(&text).is_empty() {
            problems.push(format!("{path}: no `Proof: proofs/….md` in its doc comment"));
        }
    }
    assert_no_problems("algorithm files without a proof", &problems);
}

#[test]
fn proofs_and_sources_are_self_contained() {
    let mut problems = Vec::new();
    for (path, text) in files_under("src", ".rs").into_iter().chain(files_under("proofs", ".md")) {
        for (no, line) in external_references(&text) {
            problems.push(format!("{path}:{no}: cites a document outside the repository: {line}"));
        }
    }
    assert_no_problems("references to the notes or paper files", &problems);
}

// ---- the checkers on synthetic inputs: each must catch a broken link ----

#[test]
fn proofs_link_checker_flags_references_outside_the_repository() {
    let flagged = [
        "/// C′ = 0.25 (notes §2.6).",
        "//! experiment E5 of the notes (`notes/l1-geometry.md` §5)",
        "/// regression (notes E2): features",
        "as in The Notes' table",
        "(notes erratum 5)",
        "Paper: `../shared/papers/002_275032540c8a1df4.txt`",
    ];
    for line in flagged {
        assert_eq!(external_references(line).len(), 1, "{line}");
    }
    let passed =
        ["Two notes: Lemma 5.3's inequality", "## 5 Errata and notes on the literature", "see data.txt", "x_notes = 1"];
    for line in passed {
        assert!(external_references(line).is_empty(), "{line}");
    }
    assert_eq!(external_references("a\n  (notes P9)\nb"), [(2, "(notes P9)".to_string())]);
}

#[test]
fn proofs_link_checker_flags_a_missing_line_row() {
    let src = "//! Alg. 2 of a paper.\n/// Alg. 2 (doc, not a step).\n//! Proof: proofs/zz/synthetic.md.\n\
               fn run() {\n    // Alg. 2, line 3: draw b indices\n    // Alg. 2, line 7 (corrected): H = G / a\n}\n";
    let sources = vec![("src/optim/zz/synthetic.rs".to_string(), src.to_string())];
    let (steps, bad) = step_comments(src);
    assert!(bad.is_empty(), "{bad:?}");
    assert_eq!(steps.iter().map(|s| (s.alg.as_str(), s.line.as_str())).collect::<Vec<_>>(), [("2", "3"), ("2", "7")]);
    let full = "## 2 Pseudocode\n| line | formula | code |\n|---|---|---|\n| Alg. 2, line 3 | draw | `run` |\n\
                | `Alg. 2, line 7` | H = G/a | `run` |\n";
    let proofs: BTreeMap<&str, &str> = [("proofs/zz/synthetic.md", full)].into();
    let read = |p: &str| proofs.get(p).map(|s| s.to_string());
    assert!(missing_line_rows(&sources, read).is_empty());
    // a missing row is reported with file, line and the proof it should be in
    let partial = full.replace("| `Alg. 2, line 7` | H = G/a | `run` |\n", "");
    let read = |p: &str| (p == "proofs/zz/synthetic.md").then(|| partial.clone());
    let problems = missing_line_rows(&sources, read);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("synthetic.rs:6") && problems[0].contains("Alg. 2, line 7"), "{problems:?}");
    // a row for another algorithm or inside a code fence does not count
    let fenced = format!("```\n| Alg. 2, line 7 | x | y |\n```\n{partial}| Alg. 3, line 7 | x | y |\n");
    assert!(!has_line_row(&fenced, "2", "7"));
    // a missing proof file, no citation, and a malformed comment are all reported
    assert_eq!(missing_line_rows(&sources, |_| None).len(), 2);
    let uncited = vec![("src/optim/zz/a.rs".to_string(), "// Alg. 1, line 1: x\n".to_string())];
    assert!(missing_line_rows(&uncited, |_| None)[0].contains("cites no"));
    let malformed =
        vec![("src/optim/zz/b.rs".to_string(), "//! Proof: proofs/zz/b.md\n// Alg. 1 line 1: x\n".to_string())];
    assert!(missing_line_rows(&malformed, |_| Some(String::new()))[0].contains("is not of the form"));
}

#[test]
fn proofs_link_checker_parses_checked_by_sections_and_paths() {
    let md = "# T\n## 5 Errata\n- `not_this_one`\n## 6 Checked by\n- `zz_real_test`: claim\n\
              - `zz_a`, `zz_b` and `src/x.rs` and `a::b`\n```\n- `zz_in_fence`\n```\n## 7 Other\n- `zz_after`\n";
    let names: Vec<String> = checked_by_names(md).expect("section present").into_iter().map(|(_, n)| n).collect();
    assert_eq!(names, ["zz_real_test", "zz_a", "zz_b"]);
    assert!(checked_by_names("# T\n## 5 Errata\n").is_none());
    assert!(defines_fn("#[test]\nfn zz_real_test() {}", "zz_real_test"));
    assert!(!defines_fn("fn zz_real_test_more() {}", "zz_real_test"));
    assert!(!defines_fn("fn xzz_real_test() {}", "zz_real_test"));
    let text = "/// Proof: proofs/accounting/rdp_accountant.md.\n/// see proofs/a/b.md (§ GDP), `proofs/` and proofs/….md\n\
                /// not myproofs/c.md\n";
    let paths: Vec<String> = proof_paths(text).into_iter().map(|(_, p)| p).collect();
    assert_eq!(paths, ["proofs/accounting/rdp_accountant.md", "proofs/a/b.md"]);
}

#[test]
fn proofs_link_checker_flags_a_line_row_without_its_test() {
    let is_fn = |name: &str| name.starts_with("zz_");
    let md = "## 2 Pseudocode\n| step | formula | code | checked by |\n|---|---|---|---|\n\
              | Alg. 2, line 3 | \\|U\\| draws | `run` | `zz_draws`, `zz_law` |\n| other | x | y | |\n\n\
              | a | b |\n|---|---|\n| c | d |\n";
    assert!(line_rows_without_tests("p.md", md, is_fn).is_empty());
    // an emptied cell, a name that is no test, a dropped cell, and a table without the column
    let emptied = md.replace("`zz_draws`, `zz_law`", "");
    let problems = line_rows_without_tests("p.md", &emptied, is_fn);
    assert!(problems.len() == 1 && problems[0].contains("names no test"), "{problems:?}");
    let unknown = md.replace("`zz_law`", "`no_such_test`");
    let problems = line_rows_without_tests("p.md", &unknown, is_fn);
    assert!(problems.len() == 1 && problems[0].contains("no_such_test"), "{problems:?}");
    let dropped = md.replace(" `zz_draws`, `zz_law` |", "");
    let problems = line_rows_without_tests("p.md", &dropped, is_fn);
    assert!(problems.len() == 1 && problems[0].contains("cells where the header has"), "{problems:?}");
    let no_column = "| step | formula | code |\n|---|---|---|\n| `Alg. 2, line 3` | x | `zz_run` |\n";
    let problems = line_rows_without_tests("p.md", no_column, is_fn);
    assert!(problems.len() == 1 && problems[0].contains("no last column"), "{problems:?}");
    // rows in a code fence are not checked
    assert!(line_rows_without_tests("p.md", &format!("```\n{emptied}```\n"), is_fn).is_empty());
}
