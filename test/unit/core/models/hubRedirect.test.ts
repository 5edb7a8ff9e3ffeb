import assert from 'node:assert/strict';
import { refusedHubRedirect } from '../../../../src/core/models/hubRedirect';

const FROM = 'https://hub.example/org/m/resolve/main/onnx/model.onnx';

async function verdict(hub: string, to: string): Promise<string> {
  return (await refusedHubRedirect(new URL(hub), FROM, new URL(to))) ?? 'followed';
}

describe('which redirects a model download follows', () => {
  it('follows https to a public address, and http only to the hub’s own host', async () => {
    assert.equal(await verdict('https://93.184.216.34', 'https://1.1.1.1/cdn/abc?sig=1'), 'followed');
    assert.equal(await verdict('http://127.0.0.1:8000', 'http://127.0.0.1:9000/cdn/abc'), 'followed');
    assert.match(await verdict('https://93.184.216.34', 'http://1.1.1.1/cdn/abc'), /refused a redirect to http:\/\/1\.1\.1\.1\/cdn\/abc: it follows redirects to https only, or to the hub's own host\.$/);
    assert.match(await verdict('http://127.0.0.1:8000', 'http://localhost:9000/cdn/abc'), /refused a redirect to http:\/\/localhost:9000\/cdn\/abc: it follows redirects to https only/);
  });

  it('refuses this machine, its network and link-local addresses, however written, unless the hub is there too', async () => {
    const hub = 'https://93.184.216.34';
    for (const [to, reach] of [
      ['https://169.254.169.254/latest/meta-data/', 'link-local'],
      ['https://0xa9fea9fe/latest/meta-data/', 'link-local'],
      ['https://[::ffff:169.254.169.254]/', 'link-local'],
      ['https://[fe80::1]/', 'link-local'],
      ['https://127.0.0.1/', 'loopback'],
      ['https://localhost/', 'loopback'],
      ['https://[::1]/', 'loopback'],
      ['https://0.0.0.0/', 'loopback'],
      ['https://10.1.2.3/', 'private'],
      ['https://192.168.1.1/', 'private'],
      ['https://172.20.0.1/', 'private'],
      ['https://[fd00::1]/', 'private'],
    ] as const) {
      assert.match(await verdict(hub, to), new RegExp(`^${FROM.replace(/\./g, '\\.')} redirected elsewhere, and Attest refused a redirect to .*: a ${reach} address, which the hub \\(93\\.184\\.216\\.34\\) is not\\.$`), to);
    }
    assert.equal(await verdict('http://127.0.0.1:8000', 'https://127.0.0.2/cdn'), 'followed');
    assert.equal(await verdict('https://10.0.0.5', 'https://10.0.0.6/cdn'), 'followed');
    assert.match(await verdict('http://127.0.0.1:8000', 'https://169.254.169.254/'), /a link-local address, which the hub \(127\.0\.0\.1:8000\) is not\./);
  });

  it('refuses what is not a web address at all', async () => {
    assert.match(await verdict('https://93.184.216.34', 'file:///etc/passwd'), /which is not a web address/);
  });
});
