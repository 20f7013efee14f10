//! crumbs' `-f FORMAT` and `-o FILE`'s extension: which output a session writes, and
//! whether it is gzip'd (spec §9.4).

use crate::run::Format;
use crumbs_runtime::output::destination::Destination;
use std::fs::File;
use std::io::BufWriter;

/// `-f`'s value: `json` is crumbs' JSON lines (bpftrace's JSON records are the drop-in's).
pub(crate) fn named(s: &str) -> Result<Format, String> {
    [Format::Text, Format::JsonLines, Format::Chrome, Format::Parquet]
        .into_iter()
        .find(|&f| word(f) == s)
        .ok_or_else(|| format!("`{s}` is not an output format: text, json, chrome or parquet"))
}

/// The output a session writes: its format, and whether the file is gzip'd.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Chosen {
    pub format: Format,
    pub gzip: bool,
}

/// The format of a file by its name: `.json`/`.ndjson` JSON lines, `.pfw`/`.trace.json`
/// Chrome trace events, each maybe with `.gz`; None for any other name (text, as always).
fn by_extension(path: &str) -> Result<Option<Chosen>, String> {
    let (inner, gzip) = match path.strip_suffix(".gz") {
        Some(inner) => (inner, true),
        None => (path, false),
    };
    let format = if inner.ends_with(".trace.json") || inner.ends_with(".pfw") {
        Format::Chrome
    } else if inner.ends_with(".json") || inner.ends_with(".ndjson") {
        Format::JsonLines
    } else if inner.ends_with(".parquet") {
        if gzip {
            return Err(format!("-o {path}: parquet tables are compressed inside (snappy): name the file .parquet"));
        }
        Format::Parquet
    } else if gzip {
        Format::Text
    } else {
        return Ok(None);
    };
    Ok(Some(Chosen { format, gzip }))
}

/// What `-f` and `-o` together ask for: `-f` wins over a name that says nothing, and the
/// two must not disagree.
pub(crate) fn choose(flag: Option<Format>, path: Option<&str>) -> Result<Chosen, String> {
    let by_name = match path {
        Some(p) => by_extension(p)?,
        None => None,
    };
    match (flag, by_name) {
        (Some(f), Some(c)) if f != c.format && !(c.format == Format::Text && c.gzip) => Err(format!("-f {} does not match -o {}, a {} file", word(f), path.unwrap_or_default(), word(c.format))),
        (Some(Format::Parquet), Some(c)) if c.gzip => Err(format!("-f parquet cannot write -o {}: parquet tables are compressed inside (snappy), name a .parquet file or a directory", path.unwrap_or_default())),
        (Some(Format::Parquet), _) if path.is_none() => Err("-f parquet writes files: name them with -o x.parquet (x.1.parquet, ... one per clause) or -o DIRECTORY".to_string()),
        (Some(f), Some(c)) => Ok(Chosen { format: f, gzip: c.gzip }),
        (Some(f), None) => Ok(Chosen { format: f, gzip: false }),
        (None, Some(c)) => Ok(c),
        (None, None) => Ok(Chosen { format: Format::Text, gzip: false }),
    }
}

fn word(f: Format) -> &'static str {
    match f {
        Format::Text | Format::Json => "text",
        Format::JsonLines => "json",
        Format::Chrome => "chrome",
        Format::Parquet => "parquet",
    }
}

/// Opens `-o`'s file (created and truncated) as `chosen` says, or standard output.
pub(crate) fn open(path: Option<&str>, chosen: Chosen) -> std::io::Result<Destination<'static>> {
    match (path, chosen.gzip) {
        (Some(path), true) => {
            let file = BufWriter::new(File::create(path)?);
            // GzEncoder ends the stream when it is dropped, with the sink at the end of tracing.
            // Level 2: of a Chrome trace (zlib-rs) it compresses 313 MB/s to 14.7x, where
            // level 6, the default, does 125 MB/s to 15.1x and level 1 405 MB/s to 10.3x;
            // the buffer in front hands it whole blocks rather than a line at a time.
            let gz = flate2::write::GzEncoder::new(file, flate2::Compression::new(2));
            Ok(Destination::writer(Box::new(BufWriter::with_capacity(crumbs_runtime::output::destination::BUFFER, gz))))
        }
        // Parquet's tables are files of their own, made by the sink.
        _ if chosen.format == Format::Parquet => Ok(Destination::stdout()),
        _ => crate::run::output(path, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(format: Format, gzip: bool) -> Chosen {
        Chosen { format, gzip }
    }

    #[test]
    fn extensions_and_flags() {
        assert_eq!(choose(None, Some("x.json")), Ok(c(Format::JsonLines, false)));
        assert_eq!(choose(None, Some("x.ndjson.gz")), Ok(c(Format::JsonLines, true)));
        assert_eq!(choose(None, Some("x.pfw.gz")), Ok(c(Format::Chrome, true)));
        assert_eq!(choose(None, Some("x.trace.json")), Ok(c(Format::Chrome, false)));
        assert_eq!(choose(None, Some("out.txt")), Ok(c(Format::Text, false)));
        assert_eq!(choose(None, Some("out.txt.gz")), Ok(c(Format::Text, true)));
        assert_eq!(choose(Some(Format::JsonLines), Some("out.txt")), Ok(c(Format::JsonLines, false)));
        assert_eq!(choose(Some(Format::JsonLines), Some("out.gz")), Ok(c(Format::JsonLines, true)));
        assert_eq!(choose(Some(Format::Chrome), None), Ok(c(Format::Chrome, false)));
        assert!(choose(Some(Format::JsonLines), Some("x.pfw")).unwrap_err().contains("-f json does not match -o x.pfw, a chrome file"));
        assert_eq!(choose(None, Some("x.parquet")), Ok(c(Format::Parquet, false)));
        assert_eq!(choose(Some(Format::Parquet), Some("out")), Ok(c(Format::Parquet, false)));
        assert!(choose(Some(Format::Parquet), None).unwrap_err().contains("name them with -o"));
        assert!(choose(None, Some("x.parquet.gz")).unwrap_err().contains("compressed inside"));
        assert!(choose(Some(Format::Parquet), Some("x.json")).unwrap_err().contains("-f parquet does not match -o x.json, a json file"));
        assert!(named("yaml").unwrap_err().contains("text, json, chrome or parquet"));
    }
}
