//! What the machine can do to a workspace: a full disk, a damaged file, other users.
//! Each keeps every change saved before, says plainly what happened, and recovers on
//! the next start.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;

use flightdeck_model::Advertiser;
use flightdeck_offline::Error;
use flightdeck_offline::change::Kind;
use flightdeck_offline::workspace::Workspace;
use serde_json::json;

fn advertiser(name: &str) -> Advertiser {
    serde_json::from_value(json!({
        "name": name, "agencyId": 1, "currency": "USD", "category": "IAB3"
    }))
    .unwrap()
}

#[test]
fn a_damaged_file_is_refused_moved_aside_and_the_next_start_begins_afresh() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("acme--user-demo.db");
    let garbage = b"this was a workspace until something wrote over it\n".repeat(200);
    std::fs::write(&path, &garbage).unwrap();

    let err = Workspace::open(&path)
        .err()
        .expect("a damaged file is refused");
    let Error::Damaged { kept, .. } = &err else {
        panic!("expected Error::Damaged, got {err:?}");
    };
    let text = err.to_string();
    assert!(
        text.contains("is damaged") && text.contains("moved aside"),
        "{text}"
    );
    // Kept, byte for byte, for whoever can recover it; gone from where the app looks.
    assert_eq!(std::fs::read(kept).unwrap(), garbage);
    assert!(kept.starts_with(&path.display().to_string()), "{kept}");
    assert!(!path.exists());

    // The next start works, on an empty workspace.
    let mut ws = Workspace::open(&path).unwrap();
    assert!(ws.list(Kind::Advertiser).unwrap().is_empty());
    ws.create_advertiser(advertiser("Acme")).unwrap();
    assert_eq!(ws.pending_count().unwrap(), 1);
}

#[cfg(unix)]
#[test]
fn workspace_files_are_private_to_their_user() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.db");
    let mut ws = Workspace::open(&path).unwrap();
    ws.create_advertiser(advertiser("Acme")).unwrap();
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    for file in [path.clone(), wal.into()] {
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{}", file.display());
    }
    // A file another version left readable by others is made private when opened.
    drop(ws);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let _ws = Workspace::open(&path).unwrap();
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
}

/// Set in the child that runs with a small disk of its own.
const SMALL_DISK: &str = "FLIGHTDECK_SMALL_DISK";

/// A workspace on a disk that fills up (a 2 MB tmpfs in a private mount namespace):
/// the edit that does not fit is refused in plain words, every edit before it is kept,
/// and once there is room again the same workspace takes edits and opens as before.
#[test]
fn a_full_disk_refuses_the_edit_and_keeps_everything_saved_before() {
    let Some(disk) = std::env::var_os(SMALL_DISK) else {
        // The mount needs a namespace of its own: run this test again inside one.
        let out = Command::new("unshare")
            .args(["--mount", "--map-root-user", "--"])
            .arg(std::env::current_exe().unwrap())
            .args([
                "a_full_disk_refuses_the_edit_and_keeps_everything_saved_before",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(SMALL_DISK, "")
            .output()
            .expect("unshare (util-linux) runs the test with a disk of its own");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success() && text.contains("1 passed"), "{text}");
        assert!(text.contains("disk full checked"), "{text}");
        return;
    };
    // In the child: mount the small disk.
    let dir = tempfile::tempdir().unwrap();
    let mount = dir.path().join("disk");
    std::fs::create_dir(&mount).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=2m", "tmpfs"])
        .arg(&mount)
        .status()
        .unwrap();
    assert!(mounted.success(), "mounting a tmpfs at {disk:?}");
    full_disk_scenario(&mount);
    let _ = Command::new("umount").arg(&mount).status();
    println!("disk full checked");
}

fn full_disk_scenario(disk: &Path) {
    // Room to free later, taken now.
    let ballast = disk.join("ballast");
    std::fs::write(&ballast, vec![0u8; 512 * 1024]).unwrap();
    let path = disk.join("w.db");
    let mut ws = Workspace::open(&path).unwrap();
    let long = "x".repeat(40 * 1024);
    let mut saved = 0;
    let refused = loop {
        match ws.create_advertiser(advertiser(&format!("{saved} {long}"))) {
            Ok(_) => saved += 1,
            Err(e) => break e,
        }
        assert!(saved < 500, "the disk never filled");
    };
    assert!(matches!(refused, Error::DiskFull), "{refused:?}");
    let text = refused.to_string();
    assert!(
        text.contains("disk") && text.contains("full") && text.contains("kept"),
        "{text}"
    );
    assert!(saved > 0);
    // Nothing saved before is lost, and nothing of the refused edit is there.
    assert_eq!(ws.pending_count().unwrap(), saved);
    assert_eq!(ws.list(Kind::Advertiser).unwrap().len(), saved);

    // Room again: the same workspace takes edits, and opens again with all of them.
    std::fs::remove_file(&ballast).unwrap();
    ws.create_advertiser(advertiser("after")).unwrap();
    drop(ws);
    let ws = Workspace::open(&path).unwrap();
    assert_eq!(ws.pending_count().unwrap(), saved + 1);
}
