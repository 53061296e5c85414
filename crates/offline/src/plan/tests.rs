//! Unit tests of the posting order: holds, waves and their causes, over hand-made and
//! generated changes.

use super::*;
use crate::change::ParentRef;
use flightdeck_model::FieldError;
use flightdeck_model::validate::codes;
use proptest::prelude::*;
use serde_json::json;
use std::collections::HashSet;

fn local(kind: Kind, name: &str) -> EntityRef {
    EntityRef::new(kind, Key::Local(format!("{name}-local-key")))
}

fn remote(kind: Kind, id: i64) -> EntityRef {
    EntityRef::new(kind, Key::Id(id))
}

fn change(seq: i64, target: EntityRef, op: Op, parents: &[(&str, EntityRef)]) -> PendingChange {
    PendingChange {
        seq,
        target,
        op,
        parents: parents
            .iter()
            .map(|(pointer, target)| ParentRef {
                pointer: (*pointer).to_owned(),
                target: target.clone(),
            })
            .collect(),
        payload: json!({}),
        base: None,
        errors: Vec::new(),
        status: ChangeStatus::Pending,
        client_ref: None,
    }
}

fn with_status(mut c: PendingChange, status: ChangeStatus) -> PendingChange {
    c.status = status;
    c
}

fn step(seq: i64, after: &[i64]) -> Step {
    Step {
        seq,
        after: after.to_vec(),
    }
}

fn held_seqs(p: &Plan) -> Vec<(i64, Option<i64>)> {
    p.held.iter().map(|h| (h.seq, h.blocked_by)).collect()
}

/// Every `after` names an earlier step, and no change is listed twice.
fn assert_well_formed(p: &Plan) {
    let mut seen = HashSet::new();
    for s in &p.steps {
        for a in &s.after {
            assert!(seen.contains(a), "step {} runs before {}", s.seq, a);
        }
        assert!(seen.insert(s.seq), "step {} twice", s.seq);
    }
    for h in &p.held {
        assert!(seen.insert(h.seq), "change {} both planned and held", h.seq);
    }
}

/// Draft advertiser → draft campaign → draft ad order → flight caps, with `seqs` for
/// the four changes in that order.
fn chain(seqs: [i64; 4]) -> Vec<PendingChange> {
    let adv = local(Kind::Advertiser, "adv");
    let camp = local(Kind::Campaign, "camp");
    let order = local(Kind::AdOrder, "order");
    let flight = local(Kind::Flight, "flight");
    vec![
        change(seqs[0], adv.clone(), Op::Create, &[]),
        change(seqs[1], camp.clone(), Op::Create, &[("/advertiserId", adv)]),
        change(
            seqs[2],
            order.clone(),
            Op::Create,
            &[("/campaignId", camp.clone())],
        ),
        change(
            seqs[3],
            EntityRef::new(Kind::FlightCaps, order.key.clone()),
            Op::Update,
            &[("/0/orderId", order), ("/0/flightId", flight.clone())],
        ),
        // The flight is created with its campaign; the store records that as a
        // create of the flight hanging on the campaign.
        change(seqs[1] * 100, flight, Op::Create, &[("", camp)]),
    ]
}

#[test]
fn independent_changes_have_no_after() {
    let changes = vec![
        change(3, remote(Kind::Advertiser, 1), Op::Update, &[]),
        change(1, local(Kind::SiteList, "sl"), Op::Create, &[]),
        change(2, local(Kind::AudienceSegment, "seg"), Op::Create, &[]),
        change(
            4,
            remote(Kind::AdOrder, 9),
            Op::Update,
            &[("/campaignId", remote(Kind::Campaign, 5))],
        ),
        change(
            5,
            remote(Kind::Campaign, 5),
            Op::Update,
            &[("/advertiserId", remote(Kind::Advertiser, 1))],
        ),
    ];
    let p = plan(&changes);
    assert_eq!(
        p.steps,
        vec![
            step(1, &[]),
            step(2, &[]),
            step(3, &[]),
            step(4, &[]),
            step(5, &[])
        ]
    );
    assert!(p.held.is_empty());
    assert_eq!(waves(&p), vec![vec![1, 2, 3, 4, 5]]);
}

#[test]
fn only_pending_and_sending_are_planned() {
    let t = |i| remote(Kind::Creative, i);
    let changes = vec![
        with_status(change(1, t(1), Op::Update, &[]), ChangeStatus::Applied),
        with_status(change(2, t(2), Op::Update, &[]), ChangeStatus::Failed),
        with_status(change(3, t(3), Op::Update, &[]), ChangeStatus::NeedsReview),
        with_status(change(4, t(4), Op::Update, &[]), ChangeStatus::Conflict),
        with_status(change(5, t(5), Op::Update, &[]), ChangeStatus::Blocked),
        with_status(change(6, t(6), Op::Create, &[]), ChangeStatus::Sending),
        change(7, t(7), Op::Update, &[]),
    ];
    let p = plan(&changes);
    assert_eq!(p.steps, vec![step(6, &[]), step(7, &[])]);
    assert!(p.held.is_empty());
}

#[test]
fn invalid_changes_are_held_with_their_first_error() {
    let mut bad = change(1, remote(Kind::Campaign, 1), Op::Update, &[]);
    bad.errors = vec![
        FieldError::new("flights[1].startDate", codes::OVERLAP, "overlaps flight 12"),
        FieldError::new("name", codes::REQUIRED, "is required"),
    ];
    let marked = with_status(
        change(2, remote(Kind::Campaign, 2), Op::Update, &[]),
        ChangeStatus::Invalid,
    );
    let p = plan(&[bad, marked]);
    assert!(p.steps.is_empty());
    assert_eq!(
        p.held[0].reason,
        "not valid: flights[1].startDate: overlaps flight 12"
    );
    assert_eq!(p.held[0].blocked_by, None);
    assert_eq!(p.held[1].seq, 2);
    assert!(p.held[1].reason.contains("invalid"), "{}", p.held[1].reason);
}

#[test]
fn draft_chain_goes_parent_first_whatever_the_input_order() {
    let expected = vec![
        step(1, &[]),
        step(2, &[1]),
        step(3, &[2]),
        step(200, &[2]),
        step(4, &[3, 200]),
    ];
    let mut changes = chain([1, 2, 3, 4]);
    assert_eq!(plan(&changes).steps, expected);
    changes.reverse();
    let p = plan(&changes);
    assert_eq!(p.steps, expected);
    assert_eq!(waves(&p), vec![vec![1], vec![2], vec![3, 200], vec![4]]);
}

#[test]
fn draft_chain_with_reversed_seqs_still_goes_parent_first() {
    // The store re-queued each draft's create behind its children.
    let mut changes = chain([40, 30, 20, 10]);
    changes.reverse();
    let p = plan(&changes);
    assert!(p.held.is_empty(), "{:?}", p.held);
    assert_eq!(
        p.steps,
        vec![
            step(40, &[]),
            step(30, &[40]),
            step(20, &[30]),
            step(3000, &[30]),
            step(10, &[20, 3000])
        ]
    );
    assert_well_formed(&p);
}

#[test]
fn changes_to_one_entity_keep_outbox_order() {
    let sl = local(Kind::SiteList, "sl");
    let changes = vec![
        change(5, sl.clone(), Op::SiteListRemoveSites, &[]),
        change(1, sl.clone(), Op::Create, &[]),
        change(3, sl.clone(), Op::SiteListAppend, &[]),
        change(2, remote(Kind::SiteList, 8), Op::SiteListOverwrite, &[]),
    ];
    let p = plan(&changes);
    assert_eq!(
        p.steps,
        vec![step(1, &[]), step(2, &[]), step(3, &[1]), step(5, &[3])]
    );
}

#[test]
fn creatives_wait_for_draft_campaigns_only() {
    let camp = local(Kind::Campaign, "c");
    let changes = vec![
        change(
            1,
            camp.clone(),
            Op::Create,
            &[("/advertiserId", remote(Kind::Advertiser, 1))],
        ),
        change(
            2,
            local(Kind::Creative, "a"),
            Op::Create,
            &[("/campaignId", camp)],
        ),
        change(
            3,
            local(Kind::Creative, "b"),
            Op::Create,
            &[("/advertiserId", remote(Kind::Advertiser, 1))],
        ),
    ];
    assert_eq!(
        plan(&changes).steps,
        vec![step(1, &[]), step(2, &[1]), step(3, &[])]
    );
}

#[test]
fn flight_caps_wait_for_their_ad_orders_update() {
    let order = remote(Kind::AdOrder, 9);
    let caps = EntityRef::new(Kind::FlightCaps, Key::Id(9));
    let changes = vec![
        change(1, order.clone(), Op::Update, &[]),
        change(
            2,
            caps.clone(),
            Op::Update,
            &[("/0/orderId", order.clone())],
        ),
        // A later ad-order edit does not hold back earlier caps.
        change(3, order.clone(), Op::Update, &[]),
        change(4, caps, Op::Update, &[("/0/orderId", order)]),
    ];
    let p = plan(&changes);
    assert_eq!(
        p.steps,
        vec![step(1, &[]), step(2, &[1]), step(3, &[1]), step(4, &[2, 3])]
    );
    // A flight hangs on its campaign.
    let camp = remote(Kind::Campaign, 5);
    let changes = vec![
        change(1, camp.clone(), Op::Update, &[]),
        change(
            2,
            remote(Kind::Flight, 70),
            Op::Update,
            &[("/campaignId", camp)],
        ),
    ];
    assert_eq!(plan(&changes).steps, vec![step(1, &[]), step(2, &[1])]);
}

#[test]
fn caps_on_a_new_flight_wait_for_the_campaign_change_that_carries_it() {
    let camp = local(Kind::Campaign, "camp");
    let order = local(Kind::AdOrder, "order");
    let flight = EntityRef::draft_flight(&camp, 1_800_000_000_000);
    assert_eq!(
        flight.draft_flight_parts(),
        Some((camp.clone(), 1_800_000_000_000))
    );
    let caps = EntityRef::new(Kind::FlightCaps, order.key.clone());
    let changes = vec![
        change(1, camp.clone(), Op::Create, &[]),
        change(2, order.clone(), Op::Create, &[("/campaignId", camp)]),
        change(
            3,
            caps,
            Op::Update,
            &[("/0/orderId", order), ("/0/flightId", flight.clone())],
        ),
    ];
    let p = plan(&changes);
    assert_well_formed(&p);
    assert_eq!(p.steps, vec![step(1, &[]), step(2, &[1]), step(3, &[1, 2])]);

    // A new flight added to a posted campaign by a later edit (edits fold into one
    // change, whatever its seq): the caps wait for that edit.
    let posted = remote(Kind::Campaign, 5);
    let flight = EntityRef::draft_flight(&posted, 7);
    let caps = EntityRef::new(Kind::FlightCaps, Key::Id(9));
    let changes = vec![
        change(
            1,
            caps.clone(),
            Op::Update,
            &[("/0/flightId", flight.clone())],
        ),
        change(4, posted, Op::Update, &[]),
    ];
    assert_eq!(plan(&changes).steps, vec![step(4, &[]), step(1, &[4])]);
    // No change carries it and it never landed: held, saying which flight.
    let p = plan(&changes[..1]);
    assert!(p.steps.is_empty());
    assert!(
        p.held[0].reason.contains("the new flight starting"),
        "{}",
        p.held[0].reason
    );
    // Landed in an earlier push: free to go.
    let p = plan_with(&changes[..1], |t| *t == flight);
    assert_eq!(p.steps, vec![step(1, &[])]);
}

#[test]
fn missing_draft_parent_holds_the_change_and_its_children() {
    let ghost = local(Kind::Campaign, "ghost");
    let order = local(Kind::AdOrder, "o");
    let changes = vec![
        change(1, order.clone(), Op::Create, &[("/campaignId", ghost)]),
        change(
            2,
            EntityRef::new(Kind::FlightCaps, order.key.clone()),
            Op::Update,
            &[("/0/orderId", order)],
        ),
        change(3, local(Kind::SiteList, "sl"), Op::Create, &[]),
    ];
    let p = plan(&changes);
    assert_eq!(p.steps, vec![step(3, &[])]);
    assert_eq!(held_seqs(&p), vec![(1, None), (2, Some(1))]);
    assert_eq!(
        p.held[0].reason,
        "its parent campaign draft ghost-lo is not in the workspace"
    );
    assert!(
        p.held[1]
            .reason
            .starts_with("waits for change 1 (ad order draft o-local-)"),
        "{}",
        p.held[1].reason
    );
}

#[test]
fn failed_or_invalid_parent_holds_descendants_not_unrelated_changes() {
    for status in [
        ChangeStatus::Failed,
        ChangeStatus::Invalid,
        ChangeStatus::NeedsReview,
        ChangeStatus::Conflict,
    ] {
        let mut changes = chain([1, 2, 3, 4]);
        changes[1].status = status; // the campaign
        changes.push(change(5, local(Kind::SiteList, "sl"), Op::Create, &[]));
        changes.push(change(6, remote(Kind::Campaign, 77), Op::Update, &[]));
        let p = plan(&changes);
        assert_eq!(
            p.steps,
            vec![step(1, &[]), step(5, &[]), step(6, &[])],
            "{status:?}"
        );
        let mut expected = vec![(3, Some(2)), (4, Some(3)), (200, Some(2))];
        if status == ChangeStatus::Invalid {
            expected.insert(0, (2, None));
        }
        assert_eq!(held_seqs(&p), expected, "{status:?}");
        let caps = p
            .held
            .iter()
            .find(|h| h.seq == 4)
            .map(|h| h.reason.as_str());
        assert!(
            caps.is_some_and(|r| r.contains("which waits on change 2 (campaign draft camp-loc)")),
            "{caps:?}"
        );
    }
}

#[test]
fn applied_parents_are_done_and_landed_drafts_need_no_create() {
    let camp = local(Kind::Campaign, "c");
    let changes = vec![
        with_status(
            change(1, camp.clone(), Op::Create, &[]),
            ChangeStatus::Applied,
        ),
        change(
            2,
            local(Kind::AdOrder, "o"),
            Op::Create,
            &[("/campaignId", camp.clone())],
        ),
        change(3, camp.clone(), Op::Update, &[]),
    ];
    assert_eq!(plan(&changes).steps, vec![step(2, &[]), step(3, &[])]);
    let changes = vec![change(
        2,
        local(Kind::AdOrder, "o"),
        Op::Create,
        &[("/campaignId", camp.clone())],
    )];
    assert_eq!(plan(&changes).held.len(), 1);
    let p = plan_with(&changes, |t| *t == camp);
    assert_eq!(p.steps, vec![step(2, &[])]);
}

#[test]
fn cycles_are_held() {
    let a = local(Kind::Creative, "a");
    let b = local(Kind::Campaign, "b");
    let changes = vec![
        change(1, a.clone(), Op::Create, &[("/campaignId", b.clone())]),
        change(2, b.clone(), Op::Create, &[("/x", a.clone())]),
        change(3, a, Op::Update, &[]),
        change(4, local(Kind::SiteList, "s"), Op::Create, &[]),
    ];
    let p = plan(&changes);
    assert_eq!(p.steps, vec![step(4, &[])]);
    assert_eq!(
        held_seqs(&p),
        vec![(1, Some(2)), (2, Some(1)), (3, Some(1))]
    );
    assert!(p.held[0].reason.contains("wait on each other"));
}

#[test]
fn ten_thousand_independent_changes_run_together() {
    let changes: Vec<PendingChange> = (0..10_000)
        .map(|i| change(i, local(Kind::SiteList, &i.to_string()), Op::Create, &[]))
        .collect();
    let p = plan(&changes);
    assert_eq!(p.steps.len(), 10_000);
    assert!(p.steps.iter().all(|s| s.after.is_empty()));
    assert_eq!(waves(&p).len(), 1);
}

#[test]
fn a_hundred_thousand_changes_plan_correctly() {
    // 20,000 draft chains (campaign → ad order → caps → caps again) and 20,000 site
    // lists, shuffled by a fixed permutation; every tenth chain's campaign failed.
    let mut changes = Vec::with_capacity(100_000);
    for k in 0..20_000i64 {
        let camp = local(Kind::Campaign, &format!("c{k}"));
        let order = local(Kind::AdOrder, &format!("o{k}"));
        let caps = EntityRef::new(Kind::FlightCaps, order.key.clone());
        let mut c = change(
            k * 5,
            camp.clone(),
            Op::Create,
            &[("/advertiserId", remote(Kind::Advertiser, 1))],
        );
        if k % 10 == 0 {
            c.status = ChangeStatus::Failed;
        }
        changes.push(c);
        changes.push(change(
            k * 5 + 1,
            order.clone(),
            Op::Create,
            &[("/campaignId", camp)],
        ));
        changes.push(change(
            k * 5 + 2,
            caps.clone(),
            Op::Update,
            &[("/0/orderId", order.clone())],
        ));
        changes.push(change(
            k * 5 + 3,
            caps,
            Op::Update,
            &[("/0/orderId", order)],
        ));
        changes.push(change(
            k * 5 + 4,
            local(Kind::SiteList, &format!("s{k}")),
            Op::Create,
            &[],
        ));
    }
    let n = changes.len();
    let mut shuffled = Vec::with_capacity(n);
    let mut i = 0usize;
    for _ in 0..n {
        i = (i + 48_271) % n; // 48271 is coprime with 100000, so this visits all.
        shuffled.push(changes[i].clone());
    }
    let p = plan(&shuffled);
    assert_well_formed(&p);
    assert_eq!(p.held.len(), 2_000 * 3);
    assert_eq!(p.steps.len(), 100_000 - 2_000 * 4);
    let by_seq: HashMap<i64, &Step> = p.steps.iter().map(|s| (s.seq, s)).collect();
    for k in 1..20_000i64 {
        if k % 10 == 0 {
            continue;
        }
        let b = k * 5;
        assert_eq!(by_seq[&b].after, Vec::<i64>::new());
        assert_eq!(by_seq[&(b + 1)].after, vec![b]);
        assert_eq!(by_seq[&(b + 2)].after, vec![b + 1]);
        assert_eq!(by_seq[&(b + 3)].after, vec![b + 1, b + 2]);
        assert!(by_seq[&(b + 4)].after.is_empty());
    }
    assert_eq!(waves(&p).len(), 4);
}

fn arbitrary_changes() -> impl Strategy<Value = Vec<PendingChange>> {
    let statuses = prop::sample::select(vec![
        ChangeStatus::Pending,
        ChangeStatus::Pending,
        ChangeStatus::Pending,
        ChangeStatus::Sending,
        ChangeStatus::Invalid,
        ChangeStatus::Applied,
        ChangeStatus::Failed,
        ChangeStatus::Blocked,
    ]);
    let kinds = prop::sample::select(vec![
        Kind::Advertiser,
        Kind::Campaign,
        Kind::AdOrder,
        Kind::FlightCaps,
        Kind::SiteList,
    ]);
    let op = prop::sample::select(vec![Op::Create, Op::Create, Op::Update, Op::SiteListAppend]);
    prop::collection::vec(
        (
            kinds.clone(),
            0..6u8,
            any::<bool>(),
            op,
            statuses,
            prop::collection::vec((kinds, 0..6u8, any::<bool>()), 0..3),
        ),
        0..40,
    )
    .prop_map(|rows| {
        rows.into_iter()
            .enumerate()
            .map(|(i, (kind, n, is_local, op, status, parents))| {
                let key = |n: u8, l: bool| {
                    if l {
                        Key::Local(format!("k{n}"))
                    } else {
                        Key::Id(i64::from(n))
                    }
                };
                let mut c = change(
                    (i as i64 * 7919) % 41,
                    EntityRef::new(kind, key(n, is_local)),
                    op,
                    &[],
                );
                c.status = status;
                c.parents = parents
                    .into_iter()
                    .map(|(k, n, l)| ParentRef {
                        pointer: "/x".into(),
                        target: EntityRef::new(k, key(n, l)),
                    })
                    .collect();
                c
            })
            .collect()
    })
}

proptest! {
    #[test]
    fn plans_are_well_formed(changes in arbitrary_changes()) {
        let p = plan(&changes);
        assert_well_formed(&p);
        let status: HashMap<i64, ChangeStatus> = changes.iter().map(|c| (c.seq, c.status)).collect();
        let listed: HashSet<i64> = p.steps.iter().map(|s| s.seq).chain(p.held.iter().map(|h| h.seq)).collect();
        for c in &changes {
            let expected = matches!(c.status, ChangeStatus::Pending | ChangeStatus::Sending | ChangeStatus::Invalid);
            prop_assert_eq!(listed.contains(&c.seq), expected, "{:?}", c);
        }
        for s in &p.steps {
            prop_assert!(matches!(status[&s.seq], ChangeStatus::Pending | ChangeStatus::Sending));
        }
        for h in &p.held {
            if let Some(b) = h.blocked_by {
                prop_assert!(!p.steps.iter().any(|s| s.seq == b) || h.reason.contains("each other"));
            }
        }
        // Order-independent: the same changes in reverse give the same plan.
        let mut reversed = changes.clone();
        reversed.reverse();
        prop_assert_eq!(plan(&reversed), p);
    }
}

/// A status change goes after its ad order's latest create or save, even one queued
/// later, and after the previous status change; saves never wait on a status, and a
/// status held behind a failed create says so.
#[test]
fn a_status_goes_after_the_save_of_its_ad_order() {
    let order = local(Kind::AdOrder, "order");
    let posted = remote(Kind::AdOrder, 7);
    let changes = vec![
        change(1, order.clone(), Op::Create, &[]),
        change(2, order.clone(), Op::SetStatus, &[]),
        change(3, posted.clone(), Op::SetStatus, &[]),
        change(4, posted.clone(), Op::Update, &[]),
        change(5, posted.clone(), Op::SetStatus, &[]),
    ];
    let p = plan(&changes);
    assert_well_formed(&p);
    assert_eq!(
        p.steps,
        vec![
            step(1, &[]),
            step(2, &[1]),
            step(4, &[]),
            step(3, &[4]),
            step(5, &[3, 4])
        ]
    );

    let failed = vec![
        with_status(
            change(1, order.clone(), Op::Create, &[]),
            ChangeStatus::Failed,
        ),
        change(2, order, Op::SetStatus, &[]),
    ];
    let p = plan(&failed);
    assert_eq!(held_seqs(&p), vec![(2, Some(1))]);
}
