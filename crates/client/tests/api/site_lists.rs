use flightdeck_client::Error;
use flightdeck_model::{
    MessageLevel, SITE_LIST_TYPE_ID_BASED, SITE_LIST_TYPE_RULE_BASED, SiteList, SiteListStrategy,
    SiteRule, SiteRuleType,
};

use crate::common::TestServer;

fn id_based(name: &str, sites: &[i64]) -> SiteList {
    SiteList {
        name: Some(name.into()),
        type_id: Some(SITE_LIST_TYPE_ID_BASED),
        site_ids: Some(sites.to_vec()),
        ..SiteList::default()
    }
}

#[tokio::test]
async fn id_based_list_lifecycle() {
    let s = TestServer::start().await;
    let c = s.demo();
    let added = c
        .site_list_add(&id_based("Premium", &[1, 2, 3]))
        .await
        .unwrap()
        .entity;
    let id = added.id.expect("id");
    assert_eq!(added.inserted_count, Some(3));
    assert_eq!(added.site_ids, None, "returned as null");

    let more = SiteList {
        id: Some(id),
        ..id_based("Premium", &[3, 4, 5])
    };
    let appended = c.site_list_append(&more).await.unwrap().entity;
    assert_eq!(appended.inserted_count, Some(2), "3 was there already");

    let replaced = SiteList {
        id: Some(id),
        ..id_based("Premium sites", &[7, 8, 9, 10])
    };
    let overwritten = c.site_list_overwrite(&replaced).await.unwrap().entity;
    assert_eq!(overwritten.inserted_count, Some(4));
    assert_eq!(overwritten.name.as_deref(), Some("Premium sites"));

    let remove = SiteList {
        id: Some(id),
        ..id_based("Premium sites", &[7, 8])
    };
    let reply = c.site_list_remove_sites(&remove).await.unwrap();
    assert_eq!(reply.entity.id, Some(id));
    assert_eq!(reply.entity.name.as_deref(), Some("Premium sites"));
    assert_eq!(reply.entity.inserted_count, None);
    // The INFO message reaches the caller.
    assert_eq!(reply.messages.len(), 1);
    let info = &reply.messages[0];
    assert_eq!(info.level, MessageLevel::Info);
    assert_eq!(info.code, "");
    assert!(info.message.contains("2 sites removed"), "{info:?}");
}

#[tokio::test]
async fn rule_based_list() {
    let s = TestServer::start().await;
    let list = SiteList {
        name: Some("News".into()),
        type_id: Some(SITE_LIST_TYPE_RULE_BASED),
        strategy: Some(SiteListStrategy::Precise),
        rules: Some(vec![
            SiteRule {
                name: Some("news.example".into()),
                type_: Some(SiteRuleType::Web),
            },
            SiteRule {
                name: Some("com.example.news".into()),
                type_: Some(SiteRuleType::App),
            },
        ]),
        ..SiteList::default()
    };
    let added = s.demo().site_list_add(&list).await.unwrap().entity;
    assert_eq!(added.inserted_count, Some(2));
    assert_eq!(added.rules, None);
}

#[tokio::test]
async fn site_list_errors() {
    let s = TestServer::start().await;
    let c = s.demo();
    let e = c
        .site_list_add(&SiteList {
            type_id: None,
            ..id_based("No type", &[1])
        })
        .await
        .unwrap_err();
    let Error::Rejected { messages, .. } = &e else {
        panic!("{e:?}")
    };
    assert!(
        messages
            .iter()
            .any(|m| m.field.as_deref() == Some("typeId")),
        "{messages:?}"
    );

    let unknown = SiteList {
        id: Some(999_999),
        ..id_based("Ghost", &[1])
    };
    for e in [
        c.site_list_append(&unknown).await.unwrap_err(),
        c.site_list_overwrite(&unknown).await.unwrap_err(),
        c.site_list_remove_sites(&unknown).await.unwrap_err(),
    ] {
        assert!(matches!(e, Error::NotFound { .. }), "{e:?}");
    }

    let mine = c
        .site_list_add(&id_based("Mine", &[1]))
        .await
        .unwrap()
        .entity
        .id;
    let e = s
        .basic("rival", "rival")
        .site_list_append(&SiteList {
            id: mine,
            ..id_based("Theirs", &[2])
        })
        .await
        .unwrap_err();
    assert!(matches!(e, Error::NotFound { .. }), "{e:?}");
    let e = s
        .basic("viewer", "viewer")
        .site_list_add(&id_based("Nope", &[1]))
        .await
        .unwrap_err();
    assert!(matches!(e, Error::Forbidden { .. }), "{e:?}");
}
