import apiKeys from './api-keys';
import debrisSweep from './debris-sweep';
import images from './images';
import mediaFolder from './media-folder';
import mediaStore from './media-store';
import publicUrl from './public-url';
import rateLimits from './rate-limits';
import upload from './upload';
import uploadRecords from './upload-records';

export default {
  'api-keys': apiKeys,
  'debris-sweep': debrisSweep,
  images,
  'media-folder': mediaFolder,
  'media-store': mediaStore,
  'public-url': publicUrl,
  'rate-limits': rateLimits,
  upload,
  'upload-records': uploadRecords,
};
