// The floor of a classified upload's extra work: one classification with nsfwjs's MobileNetV2 on
// TensorFlow.js's WASM backend, as the plugin's worker makes it, but in this process and without a
// worker: the medium's pixels squeezed to 224×224, then the model.
'use strict';

const path = require('path');
const sharp = require('sharp');

const PLUGIN = path.join(__dirname, '../../plugins/image-api');
const fromPlugin = (id) => require(require.resolve(id, { paths: [PLUGIN] }));

/** Loads the model once; resolves to `classify(mediumBytes)`. */
async function loadBareClassifier() {
  const tf = fromPlugin('@tensorflow/tfjs');
  const wasm = fromPlugin('@tensorflow/tfjs-backend-wasm');
  const nsfwjs = fromPlugin('nsfwjs');
  wasm.setWasmPaths(`${path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm', { paths: [PLUGIN] }))}/`);
  await tf.setBackend('wasm');
  await tf.ready();
  const info = console.info;
  console.info = () => undefined;
  const model = await nsfwjs.load('MobileNetV2', { size: 224 }).finally(() => (console.info = info));
  return async function classify(medium) {
    const pixels = await sharp(medium).resize(224, 224, { fit: 'fill' }).flatten({ background: '#ffffff' }).removeAlpha().raw().toBuffer();
    const input = tf.tensor3d(new Uint8Array(pixels), [224, 224, 3], 'int32');
    try {
      return await model.classify(input);
    } finally {
      input.dispose();
    }
  };
}

module.exports = { loadBareClassifier };
