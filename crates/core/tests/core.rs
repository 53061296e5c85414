//! The core as both hosts use it, on a real data directory: profiles, the posting state,
//! and where workspaces go.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use flightdeck_core::profiles::{EMBEDDED_ID, Profiles};
use flightdeck_core::{Core, OpenOptions, Selection};

#[tokio::test]
async fn posting_is_marked_exactly_while_the_guard_lives_however_the_post_ends() {
    let dir = tempfile::tempdir().unwrap();
    let core = Core::open(dir.path(), Selection::Active, OpenOptions::default())
        .await
        .unwrap();
    let account = core.active().unwrap();
    assert!(!account.is_posting());
    let guard = account.begin_posting().unwrap();
    assert!(account.is_posting());
    let again = account.begin_posting();
    assert!(again.is_err(), "a second post is refused while one runs");
    drop(guard);
    assert!(!account.is_posting());

    // A post that panics midway still ends the posting state.
    let worker = account.clone();
    let handle = std::thread::spawn(move || {
        let _guard = worker.begin_posting().unwrap();
        panic!("the post failed badly");
    });
    assert!(handle.join().is_err());
    assert!(
        !account.is_posting(),
        "the guard was dropped by the unwinding"
    );
    let _guard = account.begin_posting().expect("posting can start again");
}

#[tokio::test]
async fn a_service_chosen_by_address_gets_a_profile_without_changing_the_apps_choice() {
    let dir = tempfile::tempdir().unwrap();
    let core = Core::open(
        dir.path(),
        Selection::Url("https://ads.example.com".into()),
        OpenOptions::default(),
    )
    .await
    .unwrap();
    let active = core.active().unwrap();
    assert_eq!(active.profile.base_url, "https://ads.example.com/");
    let file = Profiles::read(dir.path()).unwrap();
    assert_eq!(file.active, EMBEDDED_ID, "the app still opens where it did");
    assert!(file.by_url("https://ads.example.com/").is_some());

    // The same address again is the same profile, not a second one.
    let again = Core::open(
        dir.path(),
        Selection::Url("https://ads.example.com/".into()),
        OpenOptions::default(),
    )
    .await
    .unwrap();
    assert_eq!(again.active().unwrap().profile.id, active.profile.id);
    assert_eq!(Profiles::read(dir.path()).unwrap().profiles.len(), 2);

    // Switching is the app's choice, and it is remembered.
    again.switch(&active.profile.id).await.unwrap();
    assert_eq!(
        Profiles::read(dir.path()).unwrap().active,
        active.profile.id
    );
    assert!(matches!(
        Core::open(
            dir.path(),
            Selection::Profile("nope".into()),
            OpenOptions::default()
        )
        .await,
        Err(flightdeck_core::Error::NotFound { .. })
    ));
}

#[cfg(unix)]
#[tokio::test]
async fn data_and_workspace_directories_are_private_to_the_user() {
    use std::os::unix::fs::PermissionsExt;
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("data");
    let core = Core::open(&dir, Selection::Active, OpenOptions::default())
        .await
        .unwrap();
    let path = core.active().unwrap().workspace_path().unwrap();
    for d in [dir.clone(), path.parent().unwrap().to_path_buf()] {
        let mode = std::fs::metadata(&d).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700, "{}", d.display());
    }
}

/// An import file larger than an import reads is refused before anything is read, with an
/// error at `path` naming the file and the limit, and what the workspace holds stays.
#[tokio::test]
async fn an_import_file_over_the_limit_is_refused_and_nothing_saved_is_lost() {
    use flightdeck_core::bulk::MAX_IMPORT_BYTES;
    use flightdeck_offline::change::Kind;

    let dir = tempfile::tempdir().unwrap();
    let core = Core::open(dir.path(), Selection::Active, OpenOptions::default())
        .await
        .unwrap();
    let account = core.active().unwrap();
    let small = dir.path().join("one.csv");
    std::fs::write(&small, "name\nKept Advertiser\n").unwrap();
    let kept = account
        .import_file(&small, Some(Kind::Advertiser), None, true)
        .unwrap();
    assert_eq!(kept.preview.creates, 1, "{kept:?}");
    assert_eq!(account.pending_count().unwrap(), 1);

    // A sparse file: its size is what counts, and it is never read.
    let huge = dir.path().join("huge.csv");
    let file = std::fs::File::create(&huge).unwrap();
    file.set_len(MAX_IMPORT_BYTES + 1).unwrap();
    drop(file);
    let e = account
        .import_file(&huge, Some(Kind::Advertiser), None, true)
        .unwrap_err();
    let flightdeck_core::Error::Invalid(field) = &e else {
        panic!("expected an error at the path, got {e:?}")
    };
    assert_eq!(
        (field.field.as_str(), field.code.as_str()),
        ("path", "TOO_LARGE")
    );
    assert!(
        field.message.contains(&huge.display().to_string())
            && field.message.contains("257 MB")
            && field.message.contains("the 256 MB an import reads"),
        "{}",
        field.message
    );
    assert_eq!(
        account.pending_count().unwrap(),
        1,
        "the earlier import stays"
    );
    // The same account still imports a file within the limit.
    let again = account
        .import_file(&small, Some(Kind::Advertiser), None, false)
        .unwrap();
    assert_eq!(again.preview.creates, 1, "{again:?}");
}

/// The listing limit is a profile's setting: `maxListingMb` in `profiles.json` raises it
/// for that profile's downloads, and a profile without it has the client's default.
#[tokio::test]
async fn a_profile_may_raise_its_listing_limit() {
    let dir = tempfile::tempdir().unwrap();
    let mut file = Profiles::read(dir.path()).unwrap();
    let id = file.add("Big account", "https://ads.example.com").unwrap();
    file.write(dir.path()).unwrap();
    let text = std::fs::read_to_string(dir.path().join("profiles.json")).unwrap();
    assert!(!text.contains("maxListingMb"), "unset, it is not written");
    let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
    for p in value["profiles"].as_array_mut().unwrap() {
        if p["id"] == id.as_str() {
            p["maxListingMb"] = 4096.into();
        }
    }
    std::fs::write(dir.path().join("profiles.json"), value.to_string()).unwrap();

    let core = Core::open(dir.path(), Selection::Profile(id), OpenOptions::default())
        .await
        .unwrap();
    assert_eq!(
        core.active().unwrap().config.max_listing_bytes,
        4096 * 1024 * 1024
    );
    let core = Core::open(dir.path(), Selection::Active, OpenOptions::default())
        .await
        .unwrap();
    assert_eq!(
        core.active().unwrap().config.max_listing_bytes,
        flightdeck_client::MAX_LISTING_BYTES
    );
}
