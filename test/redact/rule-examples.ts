/**
 * One positive and one negative example per pattern rule. Every credential
 * is synthetic: drawn from a seeded generator in the published shape of its
 * family. `secret` is what the rule must report (and redaction must remove);
 * `neg` is near-miss text the rule must not report.
 */

const UP = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LO = 'abcdefghijklmnopqrstuvwxyz';
const DIG = '0123456789';
const HEX = '0123456789abcdef';
const AN = UP + LO + DIG;
const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const B64 = AN + '+/';
const URLSAFE = AN + '_-';

let seed = 12345;
/** Deterministic pseudo-random string over a charset. */
export function gen(cs: string, n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    out += cs[(seed >>> 8) % cs.length];
  }
  return out;
}
const uuid = (): string => `${gen(HEX, 8)}-${gen(HEX, 4)}-4${gen(HEX, 3)}-a${gen(HEX, 3)}-${gen(HEX, 12)}`;

export interface RuleExample {
  /** Text containing the secret. */
  pos: string;
  /** The secret the rule must report. */
  secret: string;
  /** Near-miss text the rule must not report anything in. */
  neg: string;
}

function ex(secret: string, neg: string, pos?: (s: string) => string): RuleExample {
  return { secret, neg, pos: pos ? pos(secret) : `token: ${secret} end` };
}

const aws = 'AKIA' + gen(B32, 16);
const ghBody = gen(AN, 36);
const jwtH = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9';
const jwtP = 'eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkZha2UgVXNlciIsImlhdCI6MTUxNjIzOTAyMn0';
const jwtS = gen(URLSAFE, 43);
const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA' + gen(B64, 60) + '\n' + gen(B64, 64) + '\n-----END RSA PRIVATE KEY-----';

export const RULE_EXAMPLES: Record<string, RuleExample> = {
  'aws-access-key-id': ex(aws, 'AKIA' + gen(B32, 12) + ' and akia' + gen(B32, 16).toLowerCase(), (s) => `key id ${s}`),
  'aws-secret-access-key': (() => {
    const s = gen(B64, 40);
    return ex(s, `aws_secret_access_key = ${gen(B64, 39)}`, (v) => `aws_secret_access_key = "${v}"`);
  })(),
  'aws-session-token': ex(gen(B64, 300), 'aws_session_token = ' + gen(B64, 60), (s) => `AWS_SESSION_TOKEN=${s}`),
  'aws-bedrock-api-key': ex('ABSK' + gen(B64, 130), 'ABSK' + gen(B64, 50)),
  'aws-mws-key': ex('amzn.mws.' + uuid(), 'amzn.mws.' + gen(HEX, 8)),
  'gcp-api-key': ex('AIza' + gen(URLSAFE, 35), 'AIza' + gen(URLSAFE, 20)),
  'gcp-oauth-client-secret': ex('GOCSPX-' + gen(URLSAFE, 28), 'GOCSPX-' + gen(URLSAFE, 10)),
  'google-oauth-access-token': ex('ya29.' + gen(URLSAFE, 80), 'ya29.' + gen(URLSAFE, 12)),
  'google-oauth-refresh-token': ex('1//0' + gen(URLSAFE, 60), 'see 1//0' + gen(URLSAFE, 10)),
  'azure-ad-client-secret': ex(gen(AN, 3) + '8Q~' + gen(AN, 34), gen(AN, 3) + '8Q~' + gen(AN, 10)),
  'azure-storage-account-key': ex(gen(B64, 86) + '==', 'AccountKey=' + gen(B64, 40), (s) => `DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=${s};EndpointSuffix=core.windows.net`),
  'azure-shared-access-key': ex(gen(B64, 43) + '=', 'SharedAccessKey=' + gen(B64, 10), (s) => `Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey=${s}`),
  'azure-sas-signature': ex(gen(AN, 50) + '%3D', 'https://x.blob.core.windows.net/c?sig=' + gen(AN, 10), (s) => `https://acme.blob.core.windows.net/c/f.txt?sv=2022-11-02&se=2026-01-01&sig=${s}`),
  'azure-keyed-secret': ex(gen(AN, 40), 'AZURE_CLIENT_SECRET=' + gen(AN, 12), (s) => `AZURE_OPENAI_KEY=${s}`),
  'alibaba-access-key-id': ex('LTAI' + gen(AN, 20), 'LTAI' + gen(AN, 10)),
  'digitalocean-pat': ex('dop_v1_' + gen(HEX, 64), 'dop_v1_' + gen(HEX, 20)),
  'digitalocean-oauth-token': ex('doo_v1_' + gen(HEX, 64), 'doo_v1_' + gen(HEX, 20)),
  'heroku-api-key': ex('HRKU-AA' + gen(URLSAFE, 58), 'HRKU-AA' + gen(URLSAFE, 20)),
  'heroku-api-key-legacy': ex(uuid(), `heroku app id is not a key: ${uuid()}`, (s) => `HEROKU_API_KEY=${s}`),
  'flyio-token': ex('fo1_' + gen(URLSAFE, 43), 'fo1_' + gen(URLSAFE, 20)),
  'cloudflare-origin-ca-key': ex('v1.0-' + gen(HEX, 24) + '-' + gen(HEX, 146), 'v1.0-' + gen(HEX, 24) + '-' + gen(HEX, 20)),
  'cloudflare-api-key': ex(gen(URLSAFE, 40), 'CLOUDFLARE_ZONE=' + gen(AN, 10), (s) => `CLOUDFLARE_API_TOKEN=${s}`),
  'doppler-token': ex('dp.pt.' + gen(AN, 43), 'dp.pt.' + gen(AN, 10)),
  'vault-service-token': ex('hvs.' + gen(URLSAFE, 95), 'hvs.' + gen(URLSAFE, 30)),
  'vault-batch-token': ex('hvb.' + gen(URLSAFE, 150), 'hvb.' + gen(URLSAFE, 30)),
  'terraform-cloud-token': ex(gen(LO + DIG, 14) + '.atlasv1.' + gen(LO + DIG, 65), gen(LO, 14) + '.atlasv1.' + gen(LO, 10)),
  'pulumi-token': ex('pul-' + gen(HEX, 40), 'pul-' + gen(HEX, 20)),
  'databricks-token': ex('dapi' + gen(HEX, 32), 'dapi' + gen(HEX, 16)),
  'planetscale-token': ex('pscale_tkn_' + gen(URLSAFE, 43), 'pscale_tkn_' + gen(AN, 10)),
  'supabase-token': ex('sbp_' + gen(HEX, 40), 'sbp_' + gen(HEX, 20)),
  'vercel-token': ex(gen(AN, 24), 'VERCEL_ORG=' + gen(AN, 8), (s) => `VERCEL_TOKEN=${s}`),
  'netlify-token': ex(gen(URLSAFE, 43), 'NETLIFY_SITE=' + gen(AN, 10), (s) => `NETLIFY_AUTH_TOKEN=${s}`),
  'tailscale-key': ex('tskey-auth-' + gen(AN, 12) + '-' + gen(AN, 32), 'tskey-auth-' + gen(AN, 5)),
  'openshift-token': ex('sha256~' + gen(URLSAFE, 43), 'sha256~' + gen(URLSAFE, 10)),
  'render-api-key': ex('rnd_' + gen(AN, 32), 'rnd_' + gen(AN, 12)),
  'github-pat': ex('ghp_' + ghBody, 'ghp_' + gen(AN, 20)),
  'github-oauth-token': ex('gho_' + gen(AN, 36), 'gho_' + gen(AN, 20)),
  'github-app-token': ex('ghs_' + gen(AN, 36), 'ghs_' + gen(AN, 20)),
  'github-refresh-token': ex('ghr_' + gen(AN, 36), 'ghr_' + gen(AN, 20)),
  'github-fine-grained-pat': ex('github_pat_' + gen(AN + '_', 82), 'github_pat_' + gen(AN, 30)),
  'gitlab-pat': ex('glpat-' + gen(URLSAFE, 20), 'glpat-' + gen(URLSAFE, 10)),
  'gitlab-deploy-token': ex('gldt-' + gen(URLSAFE, 20), 'gldt-' + gen(URLSAFE, 10)),
  'gitlab-runner-token': ex('glrt-' + gen(URLSAFE, 20), 'glrt-' + gen(URLSAFE, 10)),
  'gitlab-pipeline-trigger-token': ex('glptt-' + gen(HEX, 40), 'glptt-' + gen(HEX, 20)),
  'gitlab-ci-job-token': ex('glcbt-' + gen(AN, 2) + '_' + gen(URLSAFE, 20), 'glcbt-' + gen(AN, 2)),
  'gitlab-other-token': ex('glsoat-' + gen(URLSAFE, 20), 'glsoat-' + gen(URLSAFE, 10)),
  'bitbucket-app-password': ex('ATBB' + gen(AN, 32), 'ATBB' + gen(AN, 12)),
  'bitbucket-client-secret': ex(gen(LO + DIG, 64), 'BITBUCKET_CLIENT_ID=' + gen(LO, 20), (s) => `BITBUCKET_CLIENT_SECRET=${s}`),
  'atlassian-api-token': ex('ATATT3' + gen(URLSAFE, 186), 'ATATT3' + gen(URLSAFE, 40)),
  'atlassian-keyed-token': ex(gen(AN, 24), 'JIRA_URL=https://acme.atlassian.net', (s) => `JIRA_API_TOKEN=${s}`),
  'sourcegraph-token': ex('sgp_' + gen(HEX, 16) + '_' + gen(HEX, 40), 'sgp_' + gen(HEX, 16) + '_' + gen(HEX, 10)),
  'anthropic-api-key': ex('sk-ant-api03-' + gen(URLSAFE, 93) + 'AA', 'sk-ant-api03-' + gen(URLSAFE, 10)),
  'openai-api-key': ex('sk-' + gen(AN, 20) + 'T3BlbkFJ' + gen(AN, 20), 'sk-' + gen(AN, 20) + 'T3BlbkFJ' + gen(AN, 8)),
  'openai-project-key': ex('sk-proj-' + gen(URLSAFE, 60), 'sk-proj-' + gen(URLSAFE, 20)),
  'openrouter-api-key': ex('sk-or-v1-' + gen(HEX, 64), 'sk-or-v1-' + gen(HEX, 20)),
  'huggingface-token': ex('hf_' + gen(UP + LO, 34), 'hf_' + gen(UP + LO, 20)),
  'huggingface-org-token': ex('api_org_' + gen(UP + LO, 34), 'api_org_' + gen(UP + LO, 20)),
  'cohere-api-key': ex(gen(AN, 40), 'COHERE_MODEL=command-r', (s) => `COHERE_API_KEY=${s}`),
  'perplexity-api-key': ex('pplx-' + gen(AN, 48), 'pplx-' + gen(AN, 20)),
  'groq-api-key': ex('gsk_' + gen(AN, 52), 'gsk_' + gen(AN, 20)),
  'xai-api-key': ex('xai-' + gen(AN, 80), 'xai-' + gen(AN, 20)),
  'replicate-token': ex('r8_' + gen(AN, 37), 'r8_' + gen(AN, 12)),
  'mistral-api-key': ex(gen(AN, 32), 'MISTRAL_MODEL=mistral-large', (s) => `MISTRAL_API_KEY=${s}`),
  'langsmith-api-key': ex('lsv2_pt_' + gen(HEX, 32) + '_' + gen(HEX, 10), 'lsv2_pt_' + gen(HEX, 12)),
  'pinecone-api-key': ex('pcsk_' + gen(AN + '_', 70), 'pcsk_' + gen(AN, 20)),
  'stripe-secret-key': ex('sk_live_' + gen(AN, 24), 'sk_live_' + gen(AN, 5)),
  'stripe-webhook-secret': ex('whsec_' + gen(AN, 32), 'whsec_' + gen(AN, 12)),
  'square-access-token': ex('sq0atp-' + gen(URLSAFE, 22), 'sq0atp-' + gen(URLSAFE, 10)),
  'square-secret': ex('sq0csp-' + gen(URLSAFE, 43), 'sq0csp-' + gen(URLSAFE, 20)),
  'paypal-braintree-token': ex('access_token$production$' + gen(LO + DIG, 16) + '$' + gen(HEX, 32), 'access_token$production$' + gen(LO, 16)),
  'braintree-private-key': ex(gen(HEX, 32), 'BRAINTREE_MERCHANT_ID=' + gen(HEX, 16), (s) => `BRAINTREE_PRIVATE_KEY=${s}`),
  'flutterwave-secret-key': ex('FLWSECK_TEST-' + gen('abcdefgh0123456789', 32) + '-X', 'FLWSECK_TEST-' + gen(HEX, 12)),
  'plaid-access-token': ex('access-sandbox-' + uuid(), 'access-sandbox-' + gen(HEX, 8)),
  'shippo-token': ex('shippo_live_' + gen(HEX, 40), 'shippo_live_' + gen(HEX, 10)),
  'duffel-token': ex('duffel_test_' + gen(URLSAFE, 43), 'duffel_test_' + gen(AN, 10)),
  'easypost-api-key': ex('EZAK' + gen(AN, 54), 'EZAK' + gen(AN, 20)),
  'shopify-token': ex('shpat_' + gen(HEX, 32), 'shpat_' + gen(HEX, 12)),
  'slack-bot-token': ex(`xoxb-${gen(DIG, 12)}-${gen(DIG, 12)}-${gen(AN, 24)}`, `xoxb-${gen(DIG, 5)}-abc`),
  'slack-user-token': ex(`xoxp-${gen(DIG, 12)}-${gen(DIG, 12)}-${gen(DIG, 12)}-${gen(HEX, 32)}`, `xoxp-${gen(DIG, 12)}-abc`),
  'slack-app-token': ex(`xapp-1-A${gen(UP + DIG, 10)}-${gen(DIG, 13)}-${gen(HEX, 64)}`, 'xapp-x-' + gen(AN, 10)),
  'slack-config-token': ex(`xoxe.xoxp-1-${gen(UP + DIG, 164)}`, `xoxe.xoxp-1-${gen(UP + DIG, 40)}`),
  'slack-legacy-token': ex(`xoxs-${gen(DIG, 10)}-${gen(DIG, 10)}-${gen(DIG, 10)}-${gen(HEX, 64)}`, 'xoxs-' + gen(LO, 10)),
  'slack-webhook-url': ex(`hooks.slack.com/services/T${gen(UP + DIG, 8)}/B${gen(UP + DIG, 8)}/${gen(AN, 24)}`, 'https://hooks.slack.com/services/T123/B456'),
  'discord-webhook-url': ex(`discord.com/api/webhooks/${gen(DIG, 18)}/${gen(URLSAFE, 68)}`, `https://discord.com/api/webhooks/${gen(DIG, 18)}/short`),
  'discord-bot-token': ex(`M${gen(AN, 23)}.${gen(URLSAFE, 6)}.${gen(URLSAFE, 27)}`, `discord bot M${gen(AN, 23)}.${gen(URLSAFE, 3)}`, (s) => `DISCORD_BOT_TOKEN=${s}`),
  'discord-keyed-secret': ex(gen(HEX, 64), 'DISCORD_GUILD=' + gen(DIG, 18), (s) => `DISCORD_CLIENT_SECRET=${s}`),
  'telegram-bot-token': ex(`${gen(DIG, 10)}:AA${gen(URLSAFE, 33)}`, `${gen(DIG, 10)}:AA${gen(URLSAFE, 10)}`),
  'twilio-api-key': ex('SK' + gen(HEX, 32), 'SK' + gen(HEX, 20) + ' task disk'),
  'sendgrid-api-key': ex(`SG.${gen(URLSAFE, 22)}.${gen(URLSAFE, 43)}`, `SG.${gen(URLSAFE, 22)}.${gen(URLSAFE, 10)}`),
  'mailgun-api-key': ex('key-' + gen(HEX, 32), 'key-' + gen(HEX, 12)),
  'mailgun-keyed-secret': ex(`${gen('abcdefgh0123456789', 32)}-${gen('abcdefgh0123456789', 8)}-${gen('abcdefgh0123456789', 8)}`, 'MAILGUN_DOMAIN=mg.example.com', (s) => `MAILGUN_API_KEY=${s}`),
  'mailchimp-api-key': ex(gen(HEX, 32) + '-us21', gen(HEX, 20) + '-us21'),
  'brevo-api-key': ex(`xkeysib-${gen(HEX, 64)}-${gen(AN, 16)}`, `xkeysib-${gen(HEX, 20)}`),
  'mailersend-token': ex('mlsn.' + gen(HEX, 64), 'mlsn.' + gen(HEX, 20)),
  'resend-api-key': ex(`re_${gen(AN, 8)}_${gen(AN, 24)}`, `re_${gen(AN, 8)}_${gen(AN, 10)}`),
  'postmark-token': ex(uuid(), 'POSTMARK_FROM=ops@example.com', (s) => `POSTMARK_SERVER_TOKEN=${s}`),
  'msteams-webhook-url': ex(
    `acme.webhook.office.com/webhookb2/${uuid()}@${uuid()}/IncomingWebhook/${gen(HEX, 32)}/${uuid()}`,
    'https://acme.webhook.office.com/webhookb2/abc',
  ),
  'npm-access-token': ex('npm_' + gen(AN, 36), 'npm_' + gen(AN, 20)),
  'npmrc-auth-token': ex(gen(URLSAFE, 36), '//registry.npmjs.org/:_authToken=${NPM_TOKEN}', (s) => `//registry.npmjs.org/:_authToken=${s}`),
  'pypi-token': ex('pypi-AgEIcHlwaS5vcmc' + gen(URLSAFE, 70), 'pypi-AgEIcHlwaS5vcmc' + gen(URLSAFE, 20)),
  'rubygems-token': ex('rubygems_' + gen(HEX, 48), 'rubygems_' + gen(HEX, 20)),
  'nuget-api-key': ex('oy2' + gen(LO + DIG, 43), 'oy2' + gen(LO + DIG, 20)),
  'clojars-token': ex('CLOJARS_' + gen(LO + DIG, 60), 'CLOJARS_' + gen(LO + DIG, 20)),
  'crates-io-token': ex('cio' + gen(AN, 32), 'cio' + gen(AN, 12)),
  'artifactory-token': ex('AKCp' + gen(AN, 69), 'AKCp' + gen(AN, 30)),
  'docker-hub-token': ex('dckr_pat_' + gen(URLSAFE, 27), 'dckr_pat_' + gen(URLSAFE, 10)),
  'circleci-token': ex(`CCIPAT_${gen(AN, 22)}_${gen(HEX, 40)}`, `CCIPAT_${gen(AN, 22)}_${gen(HEX, 10)}`),
  'buildkite-token': ex('bkua_' + gen(HEX, 40), 'bkua_' + gen(HEX, 20)),
  'octopus-deploy-api-key': ex('API-' + gen(UP + DIG, 26), 'API-' + gen(UP + DIG, 10)),
  'sonar-token': ex('squ_' + gen(HEX, 40), 'squ_' + gen(HEX, 20)),
  'prefect-api-key': ex('pnu_' + gen(AN, 36), 'pnu_' + gen(AN, 20)),
  'datadog-api-key': ex(gen(HEX, 32), 'DD_SITE=datadoghq.eu', (s) => `DD_API_KEY=${s}`),
  'sentry-org-token': ex('sntrys_eyJpYXQiO' + gen(B64, 100), 'sntrys_eyJpYXQiO' + gen(B64, 20)),
  'sentry-user-token': ex('sntryu_' + gen(HEX, 64), 'sntryu_' + gen(HEX, 20)),
  'sentry-dsn': ex(gen(HEX, 32), 'https://docs.sentry.io/platforms/', (s) => `SENTRY_DSN=https://${s}@o123456.ingest.sentry.io/4504`),
  'newrelic-api-key': ex('NRAK-' + gen(UP + DIG, 27), 'NRAK-' + gen(UP + DIG, 10)),
  'newrelic-license-key': ex(gen(HEX, 36) + 'NRAL', gen(HEX, 20) + 'NRAL'),
  'grafana-service-account-token': ex(`glsa_${gen(AN, 32)}_${gen(HEX, 8)}`, `glsa_${gen(AN, 12)}`),
  'grafana-cloud-token': ex('glc_' + gen(AN, 60), 'glc_' + gen(AN, 20)),
  'grafana-api-key': ex('eyJrIjoi' + gen(AN, 80), 'eyJrIjoi' + gen(AN, 20)),
  'dynatrace-token': ex(`dt0c01.${gen(UP + DIG, 24)}.${gen(UP + DIG, 64)}`, `dt0c01.${gen(UP + DIG, 24)}.${gen(UP + DIG, 10)}`),
  'linear-api-key': ex('lin_api_' + gen(AN, 40), 'lin_api_' + gen(AN, 20)),
  'notion-token': ex('ntn_' + gen(AN, 46), 'ntn_' + gen(AN, 20)),
  'airtable-pat': ex(`pat${gen(AN, 14)}.${gen(HEX, 64)}`, `path${gen(LO, 14)}.${gen(HEX, 20)}`),
  'figma-token': ex('figd_' + gen(URLSAFE, 40), 'figd_' + gen(URLSAFE, 20)),
  'postman-api-key': ex(`PMAK-${gen(HEX, 24)}-${gen(HEX, 34)}`, `PMAK-${gen(HEX, 24)}-${gen(HEX, 10)}`),
  'dropbox-token': ex('sl.' + gen(URLSAFE, 140), 'sl.' + gen(URLSAFE, 40)),
  'contentful-token': ex('CFPAT-' + gen(URLSAFE, 43), 'CFPAT-' + gen(URLSAFE, 20)),
  'typeform-token': ex('tfp_' + gen(URLSAFE, 59), 'tfp_' + gen(URLSAFE, 20)),
  'adobe-client-secret': ex('p8e-' + gen(AN, 32), 'p8e-' + gen(AN, 12)),
  'frameio-token': ex('fio-u-' + gen(URLSAFE, 64), 'fio-u-' + gen(URLSAFE, 20)),
  'readme-api-key': ex('rdme_' + gen(LO + DIG, 70), 'rdme_' + gen(LO + DIG, 20)),
  'infracost-api-key': ex('ico-' + gen(AN, 32), 'ico-' + gen(AN, 12)),
  'intra42-secret': ex('s-s4t2ud-' + gen(HEX, 64), 's-s4t2ud-' + gen(HEX, 20)),
  'settlemint-token': ex('sm_pat_' + gen(AN, 16), 'sm_pat_' + gen(AN, 6)),
  'definednetworking-token': ex(`dnkey-${gen(URLSAFE, 26)}-${gen(URLSAFE, 52)}`, `dnkey-${gen(URLSAFE, 26)}-x`),
  'harness-token': ex(`pat.${gen(URLSAFE, 22)}.${gen(AN, 24)}.${gen(AN, 20)}`, `pat.${gen(URLSAFE, 22)}.${gen(AN, 10)}`),
  'hubspot-token': ex('pat-na1-' + uuid(), 'pat-na1-' + gen(HEX, 8)),
  'mapbox-secret-token': ex(`sk.eyJ${gen(URLSAFE, 60)}.${gen(URLSAFE, 22)}`, `sk.eyJ${gen(URLSAFE, 20)}`),
  'facebook-access-token': ex('EAAC' + gen(AN, 150), 'EAAC' + gen(AN, 40)),
  'algolia-api-key': ex(gen(LO + DIG, 32), 'ALGOLIA_APP_ID=' + gen(UP, 10), (s) => `ALGOLIA_ADMIN_KEY=${s}`),
  'okta-token': ex('00' + gen(URLSAFE, 40), 'OKTA_DOMAIN=acme.okta.com', (s) => `OKTA_API_TOKEN=${s}`),
  'zendesk-token': ex(gen(AN, 40), 'ZENDESK_SUBDOMAIN=acme', (s) => `ZENDESK_API_TOKEN=${s}`),
  'snyk-token': ex(uuid(), 'SNYK_ORG=acme', (s) => `SNYK_TOKEN=${s}`),
  'ngrok-token': ex(`${gen(AN, 27)}_${gen(AN, 21)}`, 'NGROK_REGION=eu', (s) => `NGROK_AUTHTOKEN=${s}`),
  'onepassword-service-token': ex('ops_eyJ' + gen(B64, 300), 'ops_eyJ' + gen(B64, 40)),
  'age-secret-key': ex('AGE-SECRET-KEY-1' + gen('QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L', 58), 'AGE-SECRET-KEY-1' + gen('QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L', 20)),
  'private-key': ex(pem, '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A\n-----END PUBLIC KEY-----', (s) => `key file:\n${s}\nend`),
  jwt: ex(`${jwtH}.${jwtP}.${jwtS}`, `${jwtH}.notajwt`),
  'postgres-url': ex(gen(AN, 20), 'postgres://app@db.internal:5432/acme and postgres://user:password@localhost/db', (s) => `DATABASE_URL=postgres://app:${s}@db.internal:5432/acme`),
  'mysql-url': ex(gen(AN, 20), 'mysql://root@localhost:3306/app', (s) => `mysql://root:${s}@localhost:3306/app`),
  'mongodb-url': ex(gen(AN, 20), 'mongodb+srv://cluster0.example.net/app', (s) => `mongodb+srv://app:${s}@cluster0.example.net/app`),
  'redis-url': ex(gen(AN, 20), 'redis://localhost:6379/0', (s) => `REDIS_URL=redis://:${s}@cache.internal:6379/0`),
  'amqp-url': ex(gen(AN, 20), 'amqp://guest:guest@localhost:5672', (s) => `amqp://app:${s}@mq.internal:5672/vhost`),
  'mssql-url': ex(gen(AN, 20), 'mssql://server.internal:1433/app', (s) => `mssql://sa:${s}@server.internal:1433/app`),
  'jdbc-password': ex(gen(AN, 20), 'jdbc:postgresql://db:5432/app?user=app', (s) => `jdbc:postgresql://db:5432/app?user=app&password=${s}`),
  'jdbc-url-credentials': ex(gen(AN, 20), 'jdbc:oracle:thin:@db.internal:1521:orcl', (s) => `jdbc:oracle:thin:scott/${s}@db.internal:1521:orcl`),
  'connection-string-password': ex(gen(AN, 20), 'Server=db;Database=app;Integrated Security=true;', (s) => `Server=db;Database=app;User Id=sa;Password=${s};`),
  'url-credentials': ex(gen(AN, 20), 'https://example.com/path?q=1 and git@github.com:acme/api.git', (s) => `git clone https://deploy:${s}@git.example.com/acme/api.git`),
  'auth-bearer-token': ex(gen(AN, 40), 'Bearer tokens are described in RFC 6750', (s) => `curl -H "Authorization: Bearer ${s}" https://api.example.com`),
  'auth-basic-credentials': ex(Buffer.from('deploy:' + gen(AN, 16)).toString('base64'), 'Basic authentication is configured in nginx', (s) => `Authorization: Basic ${s}`),
  'auth-header-token': ex(gen(AN, 40), 'the Authorization: header is documented below', (s) => `Authorization: token ${s}`),
  'curl-user-credentials': ex(gen(AN, 16), 'curl -u admin https://api.example.com', (s) => `curl -s -u admin:${s} https://api.example.com`),
  'wget-password': ex(gen(AN, 16), 'wget --ask-password --user=deploy https://files.example.com/a.tgz', (s) => `wget --user=deploy --password=${s} https://files.example.com/a.tgz`),
  'httpie-auth': ex(gen(AN, 16), 'http -A bearer https://api.example.com/items and ls -a /tmp', (s) => `http -a deploy:${s} POST https://api.example.com/items`),
  'sshpass-password': ex(gen(AN, 16), 'sshpass -f ~/.pw ssh host', (s) => `sshpass -p '${s}' ssh deploy@host`),
  'cli-secret-flag': ex(gen(AN, 20), 'mytool --password-file ~/.pw --token-stdin', (s) => `mytool login --password ${s}`),
  'netrc-password': ex(gen(AN, 20), 'machine api.example.com login deploy', (s) => `machine api.example.com login deploy password ${s}`),
  'generic-api-key': ex('Zx81Qw72Er63Ty54', 'const apiKey = config.apiKeyFromEnvironment; key: src/middleware/rateLimit.ts', (s) => `api_key = "${s}"`),
  'generic-password': ex('P@ss!w0rd#2024xyz', 'password: hunter2 and password = getPasswordFromVault()', (s) => `password = "${s}"`),
  // low-entropy words: only the secret-named assignment sees them
  'secret-assignment': ex(
    `${gen(LO, 7)}-${gen(LO, 5)}-${gen(LO, 7)}-${gen(LO, 6)}`,
    'const token = getToken(); TOKEN_LIMIT=100000000 PASSWORD=$DB_PASSWORD "input_tokens": 12345678 password: ${{ secrets.DB }} token: string',
    (s) => `DB_PASSWORD=${s}`,
  ),
};
