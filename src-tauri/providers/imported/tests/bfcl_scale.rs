//! BFCL's whole data set imports in one go: every distinct definition kept (variants of a name
//! defined differently by different records included), none refused, and the set registers and
//! searches. Needs the data `scripts/setup.sh --test` fetches; under CI its absence fails.

#[path = "support/bfcl.rs"]
mod bfcl;

use std::sync::Arc;

use toolscope_engine::discovery::{Discovery, MethodFilter};
use toolscope_engine::Registry;
use toolscope_imported::{read_definitions, FindingLevel, ImportedSets};
use toolscope_protocol::ProtocolSet;

#[test]
fn the_bfcl_data_set_imports_whole() {
    let Some(dir) = bfcl::bfcl_data_dir() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must have the BFCL data: scripts/setup.sh --test fetches it"
        );
        eprintln!("skipped: no BFCL data (run scripts/setup.sh --test)");
        return;
    };
    let corpus = bfcl::bfcl_corpus(&dir).expect("the data files are readable");
    let import = read_definitions(&corpus).expect("the corpus reads");
    let errors: Vec<_> = import
        .findings
        .iter()
        .filter(|f| f.level == FindingLevel::Error)
        .collect();
    assert!(
        errors.is_empty(),
        "{} refused, first: {:?}",
        errors.len(),
        errors.first()
    );
    // 3,258 distinct definitions in the 2026.3.23 wheel; later releases add cases.
    assert!(
        import.definitions.len() >= 3_000,
        "{}",
        import.definitions.len()
    );
    assert!(import.repeats_merged > 1_000, "{}", import.repeats_merged);

    let data = tempfile::tempdir().expect("temp dir");
    let registry = Arc::new(Registry::new());
    let (sets, _) = ImportedSets::open(data.path(), Arc::clone(&registry));
    let report = sets.import("bfcl", &corpus, "bfcl-eval").expect("imports");
    assert_eq!(report.set.definitions as usize, import.definitions.len());
    let discovery = Discovery::new(Arc::clone(&registry), ProtocolSet::standard());
    let found = discovery.discovered_methods(&MethodFilter {
        query: Some("factorial".into()),
        ..MethodFilter::default()
    });
    assert!(found.iter().map(|t| t.methods.len()).sum::<usize>() >= 1);
}
