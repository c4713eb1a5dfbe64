// Local Network Access (issue 32, item 3): a page on a public origin (docs that embed the
// widget, a hosted copy) calling the user's own server on this machine. Chrome 142 on asks the
// user first; the page says where each request goes (fetch's targetAddressSpace) and, when
// such a request fails, reads the permission's state to tell a refusal from a server that is
// not running (crates/web/src/transport/space.rs, ttft-core request::address_space).
//
// In every engine: what the engine knows of it (the option, the permission names), and that
// a request carrying the option works (an engine that does not know it ignores it). In
// Chromium: the page made public (--ip-address-space-overrides: the page's server counts as
// public, its https origin is a name resolved to 127.0.0.1) reaching ttft-sim on 127.0.0.1,
// with the permission granted (the run measures) and without it (the run fails, and the
// diagnosis names the browser's refusal and the setting to change, not a server down).
import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import { after, before } from 'node:test';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from './driver/chromium.mjs';
import { WidgetPage } from './pages/widget.mjs';
import { forEachEngine, launchBrowser, makeTestCertificate, outPath, reasonFor, startSim, test } from './support.mjs';

/** A host name for the public page, resolved to 127.0.0.1 by the browser alone. */
const PUBLIC_HOST = 'public.test';

forEachEngine((engine) => {
  let browser;
  let sim;
  before(async () => {
    sim = await startSim();
    browser = await launchBrowser(engine);
  });
  after(async () => {
    await browser?.close();
    await sim?.stop();
  });

  test('what the engine knows of Local Network Access, and a request declaring its address space works in every engine', async () => {
    const widget = await WidgetPage.open(browser, sim.url);
    const seen = await widget.evaluate(async () => {
      const states = {};
      for (const name of ['loopback-network', 'local-network', 'local-network-access']) {
        try {
          states[name] = (await navigator.permissions.query({ name })).state;
        } catch (error) {
          states[name] = `rejected (${error.name})`;
        }
      }
      let declared;
      try {
        declared = (await fetch(`${location.origin}/__sim/info`, { targetAddressSpace: 'loopback' })).status;
      } catch (error) {
        declared = `${error.name}: ${error.message}`;
      }
      return { option: 'targetAddressSpace' in Request.prototype, states, declared };
    });
    console.log(`${engine}: targetAddressSpace known ${seen.option}; permissions ${JSON.stringify(seen.states)}; a same-machine fetch declaring 'loopback': ${seen.declared}`);
    assert.equal(seen.declared, 200, `${engine}: a request declaring its address space is sent and answered`);
    if (engine === 'chromium') {
      assert.equal(seen.option, true, 'Chromium 142 on knows targetAddressSpace');
      assert.match(seen.states['local-network-access'], /^(granted|denied|prompt)$/, 'Chromium knows the permission');
    }
  });

  test('a public https page reaches ttft-sim on 127.0.0.1 with the permission granted; without it the run fails and the diagnosis names the browser refusal and the setting', { skip: reasonFor(engine, { firefox: 'Chromium only: --ip-address-space-overrides is a Chromium switch (Firefox ESR has no Local Network Access)', webkit: 'Chromium only: WebKit has no Local Network Access' }) }, async () => {
    const certificate = makeTestCertificate();
    const page = await startSim(certificate.simArgs);
    const api = await startSim([], { dist: false });
    const pagePort = new URL(page.url).port;
    const chrome = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: [
        ...CHROMIUM_ARGS,
        `--ignore-certificate-errors-spki-list=${spkiOf(certificate.certPem)}`,
        `--host-resolver-rules=MAP ${PUBLIC_HOST} 127.0.0.1`,
        `--ip-address-space-overrides=127.0.0.1:${pagePort}=public`,
      ],
    });
    try {
      const origin = `https://${PUBLIC_HOST}:${pagePort}`;
      const query = `?lang=en&base_url=${encodeURIComponent(`${api.url}/v1`)}&model=${encodeURIComponent('sim-fast@prefill_ms=50')}`;
      // Granted: the run measures as from any page.
      const allowed = await chrome.newContext();
      await allowed.grantPermissions(['local-network-access'], { origin });
      const granted = await WidgetPage.openAt(await allowed.newPage(), `${origin}/${query}`);
      const ok = await granted.measure({});
      assert.equal(ok.outcome, 'ok', `granted: ${JSON.stringify(ok)}`);
      const record = await granted.storedRun(1);
      assert.ok(record.metrics.ttfa_ms >= 50, `granted: ttfa ${record.metrics.ttfa_ms} ms after the scripted 50 ms prefill`);
      // Not granted (headless Chromium shows no prompt): refused, and said so.
      const refused = await chrome.newContext();
      const denied = await WidgetPage.openAt(await refused.newPage(), `${origin}/${query}`);
      const failed = await denied.measure({ timeout: 60_000 });
      assert.equal(failed.outcome, 'failed', `not granted: ${JSON.stringify(failed)}`);
      assert.equal(failed.cause, 'connection_failed');
      const text = await denied.diagnosis.textContent();
      await denied.diagnosis.screenshot({ path: outPath('lna-refused-en.png') });
      console.log(`chromium, not granted: ${text.replace(/\s+/g, ' ').slice(0, 400)}`);
      assert.match(text, /has not let this page reach a server on this machine/, 'the refusal is named first');
      assert.match(text, /Apps on device/, 'with the setting to change');
      const permission = await denied.evaluate(async () => (await navigator.permissions.query({ name: 'local-network-access' })).state);
      assert.notEqual(permission, 'granted', `the page's permission: ${permission}`);
      // The refused run was the local server's, and is kept with its diagnosis.
      const kept = await denied.storedRun(1);
      assert.ok(kept.settings.endpoint_url.startsWith(api.url), `the run called the local server: ${kept.settings.endpoint_url}`);
      assert.equal(kept.diagnosis_cause, 'connection_failed');
    } finally {
      await chrome.close();
      await page.stop();
      await api.stop();
      certificate.remove();
    }
  });
});

/** The base64 SHA-256 of a PEM certificate's SubjectPublicKeyInfo (Chromium's SPKI list). */
function spkiOf(certPem) {
  return createHash('sha256').update(new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' })).digest('base64');
}
