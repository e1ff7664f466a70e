'use strict';
/** The bucket the instances store into, made on the cluster's S3 server. */
const { S3Client, CreateBucketCommand } = require('@aws-sdk/client-s3');

const s3Client = ({ endpoint, accessKeyId, secretAccessKey }) =>
  new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
    requestHandler: { connectionTimeout: 5000, requestTimeout: 30000 },
  });

async function createBucket(s3, bucket) {
  const client = s3Client(s3);
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    client.destroy();
  }
}

module.exports = { createBucket, s3Client };
