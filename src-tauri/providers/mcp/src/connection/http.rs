//! Reaching a streamable-HTTP server: its headers, and its authorization. Every request goes
//! through rmcp's `AuthClient`: without a token it is sent as is, and once a sign-in (or a
//! stored one) put a token in the shared manager, it is attached and refreshed. A `401` at the
//! handshake is answered by the connection's [`Authorizer`], then the handshake is tried again.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use rmcp::service::RunningService;
use rmcp::transport::auth::AuthClient;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::RoleClient;
use toolscope_engine::redact::Redactor;

use super::{
    expand_variables, handshake, is_secret_name, note_secret, snapshot, ConnectError,
    ConnectOptions,
};
use crate::client_handler::Handler;
use crate::oauth::{self, Authorizer, OAuthClientConfig};

/// The server entry's HTTP settings, as configured (before `${VAR}` expansion).
pub(super) struct Endpoint<'a> {
    pub url: &'a str,
    pub headers: &'a BTreeMap<String, String>,
    pub oauth: Option<&'a OAuthClientConfig>,
}

pub(super) async fn connect(
    handler: Handler,
    endpoint: Endpoint<'_>,
    options: &ConnectOptions,
    // `Sync`: it is held across the handshake, and the connecting future must be `Send`.
    lookup: &(dyn Fn(&str) -> Option<String> + Sync),
    secrets: &Mutex<Redactor>,
) -> Result<(RunningService<RoleClient, Handler>, Arc<Authorizer>), ConnectError> {
    let url = expand_variables(endpoint.url, "url", lookup)?;
    let mut custom = HashMap::new();
    for (name, value) in endpoint.headers {
        let value = expand_variables(value, &format!("headers.{name}"), lookup)?;
        if is_secret_name(name) {
            note_secret(secrets, &value);
        }
        let header = http::HeaderName::from_bytes(name.as_bytes())
            .map_err(|e| ConnectError::Header(name.clone(), e.to_string()))?;
        // The value is a secret more often than not: its text stays out of the error.
        let value = http::HeaderValue::from_str(&value).map_err(|_| {
            ConnectError::Header(
                name.clone(),
                "the value has characters a header cannot carry".into(),
            )
        })?;
        custom.insert(header, value);
    }
    let settings = match endpoint.oauth {
        Some(oauth) => expand_oauth(oauth, lookup, secrets)?,
        None => OAuthClientConfig::default(),
    };
    options.log.set_secrets(Arc::new(snapshot(secrets)));
    let config = StreamableHttpClientTransportConfig::with_uri(url.clone()).custom_headers(custom);
    let context = &options.sign_in;
    let manager = oauth::starting_manager(&options.name, &url, context)
        .await
        .map_err(|e| ConnectError::Handshake(e.to_string()))?;
    let http = reqwest::Client::builder()
        // A redirect would carry the token to wherever it points.
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| ConnectError::Handshake(e.to_string()))?;
    let client = AuthClient::new(http, manager);
    let signer = Arc::new(Authorizer::new(
        options.name.clone(),
        url.clone(),
        settings,
        Arc::clone(&options.hooks.browser),
        Arc::clone(&client.auth_manager),
        context.clone(),
    ));
    let note_token = |token: Option<String>| {
        if let Some(token) = token {
            note_secret(secrets, &token);
            options.log.set_secrets(Arc::new(snapshot(secrets)));
        }
    };
    note_token(signer.access_token().await);
    let transport = || StreamableHttpClientTransport::with_client(client.clone(), config.clone());
    let timeout = options.handshake_timeout;
    let service = match handshake(handler.clone(), transport(), timeout).await {
        Ok(service) => service,
        Err(ConnectError::Unauthorized(challenge)) => {
            // Signing in waits for a person, so it is outside the handshake's limit.
            signer
                .authorize(&challenge, 0)
                .await
                .map_err(|e| ConnectError::from(e).redacted(&snapshot(secrets)))?;
            note_token(signer.access_token().await);
            handshake(handler, transport(), timeout)
                .await
                .map_err(|e| e.redacted(&snapshot(secrets)))?
        }
        Err(e) => return Err(e.redacted(&snapshot(secrets))),
    };
    Ok((service, signer))
}

/// The server's `oauth` settings with `${VAR}`s expanded; the client secret is a secret.
fn expand_oauth(
    oauth: &OAuthClientConfig,
    lookup: &dyn Fn(&str) -> Option<String>,
    secrets: &Mutex<Redactor>,
) -> Result<OAuthClientConfig, ConnectError> {
    let expand = |value: &Option<String>, field: &str| {
        value
            .as_deref()
            .map(|v| expand_variables(v, &format!("oauth.{field}"), lookup))
            .transpose()
    };
    let client_secret = expand(&oauth.client_secret, "clientSecret")?;
    if let Some(secret) = &client_secret {
        note_secret(secrets, secret);
    }
    Ok(OAuthClientConfig {
        client_id: expand(&oauth.client_id, "clientId")?,
        client_secret,
        client_metadata_url: expand(&oauth.client_metadata_url, "clientMetadataUrl")?,
        scopes: oauth.scopes.clone(),
    })
}
