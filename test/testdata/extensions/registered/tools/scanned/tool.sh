#!/usr/bin/env bash
echo scanned
