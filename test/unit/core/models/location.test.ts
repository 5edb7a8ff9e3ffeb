import assert from 'node:assert/strict';
import * as path from 'node:path';
import { ModelError } from '../../../../src/core/models/errors';
import { modelLocation } from '../../../../src/core/models/location';

const STORAGE = '/storage';
const HOME = '/home/me';

describe('the model setting', () => {
  it('takes a hub repository into the models folder of Attest\'s storage', () => {
    assert.deepEqual(modelLocation('Xenova/nli-deberta-v3-xsmall', STORAGE, HOME), {
      kind: 'hub',
      repo: 'Xenova/nli-deberta-v3-xsmall',
      dir: path.join(STORAGE, 'models', 'Xenova', 'nli-deberta-v3-xsmall'),
    });
  });

  it('takes a revision, kept apart from the main branch, the folder still named after the model', () => {
    assert.deepEqual(modelLocation('Xenova/bge-small-en-v1.5@v1.0', STORAGE, HOME), {
      kind: 'hub',
      repo: 'Xenova/bge-small-en-v1.5',
      revision: 'v1.0',
      dir: path.join(STORAGE, 'models', '@v1.0', 'Xenova', 'bge-small-en-v1.5'),
    });
  });

  it('takes a relative folder from the folder it is given, not the working directory', () => {
    assert.deepEqual(modelLocation('./models/nli', STORAGE, HOME, '/work/paper'), { kind: 'folder', dir: '/work/paper/models/nli' });
  });

  it('takes folders as folders', () => {
    assert.deepEqual(modelLocation('~/models/nli', STORAGE, HOME), { kind: 'folder', dir: path.join(HOME, 'models/nli') });
    assert.deepEqual(modelLocation('/opt/nli', STORAGE, HOME), { kind: 'folder', dir: '/opt/nli' });
  });

  const escapes = ['Xenova/nli#/../..', 'a/../../etc', 'owner/..', 'owner/name/extra', 'owner/na%2Fme', 'owner/name@../../x', 'owner/name@', 'owner/ name', 'single'];
  for (const value of escapes) {
    it(`refuses ${JSON.stringify(value)}, naming the forms the setting takes`, () => {
      assert.throws(
        () => modelLocation(value, STORAGE, HOME),
        (error: unknown) => error instanceof ModelError && /is neither a model folder .* nor a Hugging Face repository \(owner\/name, or owner\/name@revision\)/.test(error.message),
      );
    });
  }
});
