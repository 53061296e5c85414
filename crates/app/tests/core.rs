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
        Err(flightdeck_core::Error::NotFound(_))
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
