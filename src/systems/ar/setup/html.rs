//! The setup report as one self-contained HTML page (being written).

use serde_json::Value;

/// The page for the JSON report `report` (`report::to_json`), its example links opening
/// `playground`.
pub fn page(report: &Value, playground: &str) -> String {
    let _ = (report, playground);
    unimplemented!("the HTML report")
}
