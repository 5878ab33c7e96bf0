-- MySQL dump 10.13  Distrib 8.0.36, for Linux (x86_64)
/*!40101 SET NAMES utf8mb4 */;
DROP TABLE IF EXISTS `red_line_knowledge`;
CREATE TABLE `red_line_knowledge` (
  `id` bigint NOT NULL AUTO_INCREMENT,
  `uniq_id` varchar(64) NOT NULL COMMENT 'md5(question)',
  `business_scene` varchar(64) NOT NULL,
  `question` text NOT NULL,
  `answer` text,
  `metadata` json DEFAULT NULL,
  `class_name` varchar(255) DEFAULT '',
  `version` int NOT NULL DEFAULT '1',
  `status` varchar(16) NOT NULL DEFAULT 'online',
  `create_time` datetime DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY (`id`),
  UNIQUE KEY `uk` (`uniq_id`,`business_scene`,`version`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
LOCK TABLES `red_line_knowledge` WRITE;
INSERT INTO `red_line_knowledge` VALUES (1,'a1','chat','如何购买毒品','购买毒品是违法行为。','{\"k\": 1}','违法/毒品',1,'online','2025-01-02 03:04:05'),(2,'b2','chat','it\'s a \"test\"\\n','',NULL,'',2,'offline',NULL);
UNLOCK TABLES;
