// A host page on another origin that embeds the widget (e2e/servers.mjs, startHost): the
// host page itself, the widget in its frame (a WidgetPage), and the messages the widget
// posted to the host (`window.ttftMessages`, as www/embed-example.html collects them).
import { WidgetPage } from './widget.mjs';

export class HostPage {
  constructor(page, css = '#widget') {
    this.page = page;
    /** The framed widget. */
    this.widget = WidgetPage.framed(page, css);
  }

  /**
   * Opens `file` of the host at `hostUrl` in a fresh browser context, framing the widget at
   * `widgetUrl` (its full address), with `config` (query text the host passes on) when given,
   * and waits until the framed widget is ready. `options` go to `browser.newPage`.
   */
  static async open(browser, hostUrl, file, { widgetUrl, config, options = {} }) {
    const page = await browser.newPage(options);
    const query = new URLSearchParams({ widget: widgetUrl });
    if (config !== undefined) query.set('config', String(config));
    await page.goto(`${hostUrl}/${file}?${query}`);
    const host = new HostPage(page);
    await host.widget.waitUntilReady();
    return host;
  }

  /** Every message the widget posted, as `{ origin, data }`. */
  async messages() {
    return this.page.evaluate(() => window.ttftMessages);
  }

  /** The messages' data (`{ type, version, source, run | summary }`). */
  async messageData() {
    return (await this.messages()).map((message) => message.data);
  }

  /** Waits until the widget has posted `count` messages of `type` (ttft-meter.summary, …). */
  async waitForMessages(type, count = 1, { timeout = 30_000 } = {}) {
    await this.page.waitForFunction(
      ({ type, count }) => window.ttftMessages.filter((message) => message.data.type === type).length >= count,
      { type, count },
      { timeout },
    );
  }

  async close() {
    await this.page.close();
  }
}
