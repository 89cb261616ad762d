#!/bin/bash
cd $HOME
files=`ls *.txt`
echo $files
